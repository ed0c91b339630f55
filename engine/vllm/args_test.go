package vllm_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/vllm"
)

func TestSplitOptions(t *testing.T) {
	t.Parallel()
	args := []string{"m", "--max-num-seqs", "64", "--enforce-eager", "pos", "--swap-space", "-1",
		"--foo", "bar", "--baz=1", "--max-model-len", "--kv-cache-dtype=fp8", "-O3", "--", "--model", "x"}
	want := []vllm.Option{
		{Value: "m"},
		{Name: "--max-num-seqs", Value: "64", HasValue: true, Known: true},
		{Name: "--enforce-eager", Known: true},
		{Value: "pos"},                                                   // a switch takes no value
		{Name: "--swap-space", Value: "-1", HasValue: true, Known: true}, // a negative number is a value
		{Name: "--foo", Value: "bar", HasValue: true},                    // unknown: the next word goes with it
		{Name: "--baz", Value: "1", HasValue: true, Eq: true},
		{Name: "--max-model-len", Known: true}, // the next word is an option: no value
		{Name: "--kv-cache-dtype", Value: "fp8", HasValue: true, Eq: true, Known: true},
		{Name: "-O3"},
		{Name: "--"},
		{Value: "--model"}, {Value: "x"}, // after "--" every word is positional
	}
	if got := vllm.SplitOptions(args, vllm.CatalogArity); !reflect.DeepEqual(got, want) {
		t.Errorf("SplitOptions:\n got %+v\nwant %+v", got, want)
	}
}

// FuzzSplitOptions: argument lists come from pasted commands and imported
// run files. Splitting loses and invents no word: the options, written
// back, are the input in order.
func FuzzSplitOptions(f *testing.F) {
	f.Add("m --max-num-seqs 64 --enforce-eager pos --swap-space -1 --foo bar --baz=1 -- --model x")
	f.Add("--model=-m --served-model-name -x - -- --")
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, " ")
		var back []string
		for _, o := range vllm.SplitOptions(args, vllm.CatalogArity) {
			switch {
			case o.Name == "":
				back = append(back, o.Value)
			case o.Eq:
				back = append(back, o.Name+"="+o.Value)
			case o.HasValue:
				back = append(back, o.Name, o.Value)
			default:
				back = append(back, o.Name)
			}
		}
		if !reflect.DeepEqual(back, args) {
			t.Fatalf("SplitOptions(%q) written back is %q", args, back)
		}
	})
}

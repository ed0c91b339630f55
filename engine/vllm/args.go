package vllm

import (
	"strconv"
	"strings"
)

// Option is one element of a `vllm serve` argument list as argparse splits
// it: an option with its value, or a positional word.
type Option struct {
	// Name is the option as written before any '=' ("--max-num-seqs",
	// "--max_num_seqs", "-O3"); "" for a positional word. "--" is an
	// option of its own: every word after it is positional.
	Name string
	// Value is the option's value, or the positional word.
	Value string
	// HasValue says a value was given; Eq that it came after '=' rather
	// than as the next word. A value option at the end of the list has
	// none, which its reader reports.
	HasValue, Eq bool
	// Known is what arity said of the option (false for positional words).
	Known bool
}

// Arity says whether the option name (as written) takes a value and
// whether the caller knows it at all. Catalog is the arity of vLLM's flags;
// the simulator adds its own.
type Arity func(name string) (takesValue, known bool)

// CatalogArity is the Arity of the flag catalog: switches take no value;
// every other flag takes one; `--model` takes one though the catalog leaves
// it to the launch form.
func CatalogArity(name string) (takesValue, known bool) {
	if name == "--model" {
		return true, true
	}
	f, _, ok := Lookup(name)
	return ok && f.TakesValue(), ok
}

// SplitOptions splits a `vllm serve` argument list the way argparse does,
// the one tokeniser behind the launch form's parser (ParseArgs,
// ParseCommand), the simulator's command line and the comparison's flag
// differences:
//   - "--flag=value" splits at the first '=';
//   - an option that takes a value takes the next word unless that word is
//     itself an option (a negative number such as -1 is a value);
//   - an unknown option takes the next word when it is not an option, as
//     argparse leaves such a pair unrecognised together;
//   - a word that does not start with '-', "-" alone, and a negative number
//     are positional;
//   - "--" ends the options: it is returned, and every word after it is
//     positional.
func SplitOptions(args []string, arity Arity) []Option {
	out := make([]Option, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, Option{Name: a})
			for _, w := range args[i+1:] {
				out = append(out, Option{Value: w})
			}
			break
		}
		if !IsOption(a) {
			out = append(out, Option{Value: a})
			continue
		}
		name, val, eq := strings.Cut(a, "=")
		o := Option{Name: name, Value: val, HasValue: eq, Eq: eq}
		takes, known := arity(name)
		if !eq && (takes || !known) && i+1 < len(args) && !IsOption(args[i+1]) {
			i++
			o.Value, o.HasValue = args[i], true
		}
		o.Known = known
		out = append(out, o)
	}
	return out
}

// IsOption tells an option from a value, as argparse does: it starts with
// '-', is more than "-", and is not a negative number.
func IsOption(w string) bool {
	if len(w) < 2 || w[0] != '-' {
		return false
	}
	_, err := strconv.ParseFloat(w, 64)
	return err != nil
}

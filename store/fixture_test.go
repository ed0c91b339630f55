package store

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// fullRun builds a run in which every field of the document, at every
// depth, holds a distinct non-zero value: filled by reflection, so a field
// added to bench.Run is covered by the store's round trip without anyone
// remembering to add it here (and fails it until the store keeps it).
// Each test needs its own seed: the UUID follows from it, and runs being
// recorded are registered per process, so two parallel tests with one seed
// see each other's recording (an orphan then looks alive).
func fullRun(t testing.TB, seed int) *rundoc.Run {
	t.Helper()
	r := &rundoc.Run{}
	n := seed * 300 // distinct per seed, within the validator's bounds
	fill(reflect.ValueOf(r).Elem(), &n)
	r.Schema = rundoc.Schema
	r.UUID = uuid.NewSHA1(uuid.NameSpaceOID, []byte(fmt.Sprint("run", seed))).String()
	r.Status = rundoc.RunComplete
	r.Origin = rundoc.OriginMeasured
	r.Server.KVCapacitySource = rundoc.KVSourceMetrics
	r.Server.Personality = "llama-server"
	r.Server.Roofline.WeightsSource, r.Server.Roofline.KVBytesSource = rundoc.RooflineLog, rundoc.RooflineLog
	r.Server.Roofline.BandwidthSource = rundoc.RooflineHardware
	r.Server.Roofline.Missing = []string{rundoc.RooflineMissingWeights, rundoc.RooflineMissingBandwidth}
	r.Rig.Kind = rundoc.RigSSH
	r.Source.Format = rundoc.SourceLDB
	r.Source.File = json.RawMessage(fmt.Sprintf(`{"metadata":{"ForceP2P":"%d"},"results":[]}`, seed))
	r.FinishedAt = r.CreatedAt.Add(time.Hour)
	// A quality check (issue 37): an agreement probe, whose top-k maps are
	// keyed by the model's token texts, paired with a baseline.
	r.Quality.Probe = "agreement"
	r.Quality.Result = json.RawMessage(fmt.Sprintf(`{"kind":"rigbench.quality/v1","probe":"agreement","profile":"p%d","endpoint":"http://127.0.0.1:8000",`+
		`"model":"m","started":"2026-01-01T00:00:00Z","prompts":[{"id":"arith-1","tokens":[" The","A"],"top_logprobs":[{" The":-0.1,"A":-2.5},{"A":-0.2}]}]}`, seed))
	r.Quality.Baseline.Comparison = json.RawMessage(`{"prompts":1,"prefix_share":0.5,"prefix_share_ci95":0,"after_share":0,"diverged":1,"kl":0.01,"kl_ci95":0,"per_prompt":[]}`)
	r.Plan.AcceptLenRef = 1 + float64(seed%60) // tokens per step: 1 to 65
	// A cluster's GPU counts (issue 40) are a rig's: one each, at most 1024.
	if c := r.Launch.Cluster; c != nil {
		for i := range c.GPUs {
			c.GPUs[i] = 1 + (seed+i)%8
		}
	}

	// A burst cell (issue 39) beside the decode cell, at its own context
	// and concurrency: the history keeps every phase.
	r.Cells = append(r.Cells, r.Cells[1])
	r.Cells[2].Context++
	phases := []rundoc.Phase{rundoc.PhasePrefill, rundoc.PhaseDecode, rundoc.PhaseBurst}
	for i := range r.Cells {
		c := &r.Cells[i]
		c.Phase = phases[i%3]
		c.Status = rundoc.StatusValid
		c.TokenCountSource = rundoc.TokensContinuousUsage
		// Shares and tokens per step have bounds of their own.
		c.SpecAcceptRate = 0.5 + float64(seed%40+i)/100
		c.SpecAcceptLength, c.SpecAcceptLengthEff = 2.25+float64(i)/8, 2.125+float64(i)/8
		c.SpecPosAccept = []float64{0.75 + float64(i)/100, 0.5 + float64(i)/100}
	}
	if err := rundoc.ValidateRun(r); err != nil {
		t.Fatalf("fixture is invalid: %v", err)
	}
	return r
}

func fill(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", *n))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(*n) + 0.25)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := 0; i < 2; i++ {
			fill(v.Index(i), n)
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(time.Unix(1_760_000_000+int64(*n), int64(*n)).UTC()))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			// Fields outside the document (json:"-") are not stored.
			if f := v.Type().Field(i); f.IsExported() && f.Tag.Get("json") != "-" {
				fill(v.Field(i), n)
			}
		}
	default:
		panic(fmt.Sprintf("fill: unhandled kind %s", v.Kind()))
	}
}

// openTemp opens a fresh history in the test's temp folder.
func openTemp(t testing.TB) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "sub", "history.db"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

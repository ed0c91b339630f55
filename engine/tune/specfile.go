package tune

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/internal/safefile"
)

// A sweep keeps its spec as JSON in a folder beside the history
// (SpecDir) from the moment it starts, so a sweep cut off by a crash can be
// resumed from its id alone: `rigbench-cli tune --resume ID` needs no other
// flag, and the app offers Resume after it restarts. Secrets (an API key
// among the flags, the Hugging Face token) are left out of the file.

// Target kinds of Spec.Target: the session kinds a sweep can run on (an
// endpoint RigBench did not start cannot be relaunched per variant).
const (
	TargetDemo   = session.Demo
	TargetLaunch = session.Launch
)

// SpecDir is the folder of spec files beside the history file at
// historyPath.
func SpecDir(historyPath string) string { return filepath.Join(filepath.Dir(historyPath), "sweeps") }

// validID matches the ids NewID makes, so an id typed after --resume can
// never name a path outside SpecDir.
var validID = regexp.MustCompile(`^[0-9a-f]{8}$`)

// CheckID refuses an id that NewID could not have made.
func CheckID(id string) error {
	if !validID.MatchString(id) {
		return fmt.Errorf("%q is not a sweep id (8 hex digits, as the sweep printed when it started)", id)
	}
	return nil
}

// SaveSpec writes the spec to dir/ID.json, without secrets.
func SaveSpec(dir string, s Spec) error {
	if err := CheckID(s.ID); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("keeping the sweep's spec for --resume: %w", err)
	}
	s.Base = s.Base.WithoutSecrets()
	return safefile.Write(filepath.Join(dir, s.ID+".json"), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	})
}

// LoadSpec reads the spec of sweep id from dir.
func LoadSpec(dir, id string) (Spec, error) {
	if err := CheckID(id); err != nil {
		return Spec{}, err
	}
	path := filepath.Join(dir, id+".json")
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Spec{}, fmt.Errorf("no sweep %s was started with this history (its spec is not in %s)", id, dir)
	}
	if err != nil {
		return Spec{}, err
	}
	// SaveSpec writes a regular file. Anything else (a FIFO, a device)
	// could block the open or the read for as long as nobody writes to it,
	// and Ctrl-C with it, so it is refused before it is opened.
	if !fi.Mode().IsRegular() {
		return Spec{}, fmt.Errorf("the spec of sweep %s (%s) is not a regular file: remove it, or start a new sweep", id, path)
	}
	if fi.Size() > MaxDocBytes {
		return Spec{}, fmt.Errorf("the spec of sweep %s is %d MiB, more than the %d MiB a spec may have: it is not one RigBench wrote", id, fi.Size()>>20, MaxDocBytes>>20)
	}
	f, err := os.Open(path)
	if err != nil {
		return Spec{}, err
	}
	defer f.Close()
	var s Spec
	if err := json.NewDecoder(io.LimitReader(f, MaxDocBytes)).Decode(&s); err != nil {
		return Spec{}, fmt.Errorf("the spec of sweep %s cannot be read: %w", id, err)
	}
	if s.ID != id {
		return Spec{}, fmt.Errorf("the spec file of sweep %s names sweep %q", id, s.ID)
	}
	return s, s.Validate()
}

// LatestSpec returns the spec of the sweep started last with this history
// (the newest spec file), and when it was saved; ok is false when there is
// none.
func LatestSpec(dir string) (s Spec, saved time.Time, ok bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return Spec{}, time.Time{}, false
	}
	var bestID string
	for _, e := range entries {
		id, isJSON := strings.CutSuffix(e.Name(), ".json")
		info, err := e.Info()
		if !isJSON || CheckID(id) != nil || err != nil {
			continue
		}
		if info.ModTime().After(saved) {
			bestID, saved = id, info.ModTime()
		}
	}
	if bestID == "" {
		return Spec{}, time.Time{}, false
	}
	s, err = LoadSpec(dir, bestID)
	return s, saved, err == nil
}

// MarkFinished records beside its spec (dir/ID.finished) that sweep id ran
// to its end. A finished sweep stays finished when one of its runs is
// deleted from the history later: it is judged from the variants that
// remain, instead of reading as a sweep cut off before them (Finished).
func MarkFinished(dir, id string) error {
	if err := CheckID(id); err != nil {
		return err
	}
	return safefile.Write(filepath.Join(dir, id+".finished"), func(w io.Writer) error {
		_, err := io.WriteString(w, time.Now().UTC().Format(time.RFC3339)+"\n")
		return err
	})
}

// Finished reports whether sweep id ran to its end (MarkFinished), so a
// front end reopening on it shows its verdict, not Resume, whatever was
// deleted from the history since.
func Finished(dir, id string) bool {
	if CheckID(id) != nil {
		return false
	}
	fi, err := os.Stat(filepath.Join(dir, id+".finished"))
	return err == nil && fi.Mode().IsRegular()
}

package sim

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/hardware"
)

// The stand-in answers the query hardware detection asks, from the
// profile, in a form hardware.ParseNvidiaSMI reads.
func TestStandInNvidiaSMIAnswersTheRigQuery(t *testing.T) {
	var out, errb bytes.Buffer
	if code := NvidiaSMI(hardware.NvidiaSMIArgs()[1:], func(string) string { return "" }, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	gpus, driver, err := hardware.ParseNvidiaSMI(out.String())
	if err != nil {
		t.Fatalf("%v in %q", err, out.String())
	}
	p := DefaultProfile()
	if len(gpus) != 1 || gpus[0].Name != p.GPUName || gpus[0].VRAMTotalBytes != uint64(p.GPUMemoryGiB*1024)<<20 || !strings.HasSuffix(driver, "-sim") {
		t.Fatalf("read %+v, driver %q", gpus, driver)
	}
}

func TestStandInNvidiaSMIWithHeaderUnitsAndErrors(t *testing.T) {
	var out, errb bytes.Buffer
	if code := NvidiaSMI([]string{"--query-gpu=name,memory.total", "--format=csv"}, nil, &out, &errb); code != 0 {
		t.Fatal(errb.String())
	}
	if want := "name, memory.total [MiB]\n" + DefaultProfile().GPUName + ", 12288 MiB\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	out.Reset()
	if code := NvidiaSMI([]string{"--query-gpu=bogus", "--format=csv"}, nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), `Field "bogus" is not a valid field to query.`) {
		t.Errorf("an unknown field: exit %d, %q", code, errb.String())
	}
	out.Reset()
	if NvidiaSMI([]string{"-L"}, nil, &out, &errb) != 0 || !strings.HasPrefix(out.String(), "GPU 0: "+DefaultProfile().GPUName) {
		t.Errorf("-L: %q", out.String())
	}
}

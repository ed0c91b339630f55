package locale

import "testing"

func TestNormalize(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want map[string]string
	}{
		{map[string]string{"LANG": "C.UTF-8"}, map[string]string{"LANG": "C"}},
		{map[string]string{"LANG": "POSIX.utf8"}, map[string]string{"LANG": "C"}},
		{map[string]string{"LANG": "de_DE.UTF-8"}, map[string]string{"LANG": "de_DE.UTF-8"}},
		{map[string]string{"LC_ALL": "fr_FR.UTF-8", "LANG": "C.UTF-8"}, map[string]string{"LC_ALL": "fr_FR.UTF-8", "LANG": "C.UTF-8"}},
		{map[string]string{"LC_ALL": "C.UTF-8", "LANG": "en_GB.UTF-8"}, map[string]string{"LC_ALL": "C", "LANG": "en_GB.UTF-8"}},
		{map[string]string{}, map[string]string{}},
	}
	for _, c := range cases {
		env := map[string]string{}
		for k, v := range c.env {
			env[k] = v
		}
		Normalize(func(k string) string { return env[k] }, func(k, v string) error { env[k] = v; return nil })
		for k, want := range c.want {
			if env[k] != want {
				t.Errorf("%v: %s = %q, want %q", c.env, k, env[k], want)
			}
		}
	}
}

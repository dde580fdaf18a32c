package manifest

import (
	"strings"
	"testing"
)

func TestLoadFileResilience(t *testing.T) {
	svc := func(name string) string {
		return "apiVersion: v1\nkind: Service\nmetadata: {name: " + name + "}\nspec: {ports: [{port: 80}]}\n"
	}
	tests := []struct {
		name, data string
		objects    []string
		problems   []string // CODE LINE:COL
	}{
		{"clean", svc("a") + "---\n" + svc("b"), []string{"a", "b"}, nil},
		{"one broken document of three", svc("a") + "---\nkind: [\n---\n" + svc("c"), []string{"a", "c"}, []string{"GWP100 7:1"}}, // where the parser gives up
		{"two broken documents", "kind: [\n---\n" + svc("b") + "---\nmetadata: {name: [x}\n", []string{"b"}, []string{"GWP100 2:1", "GWP100 8:1"}},
		{"no kind anywhere: not a manifest", "apiVersion: v2\nname: chart\nversion: 0.1.0\n", nil, []string{"GWP107 1:1"}},
		{"JSON that is no manifest", "{\"name\": \"site\"}\n", nil, []string{"GWP107 1:1"}},
		{"a list is no manifest", "- a\n- b\n", nil, []string{"GWP107 1:1"}},
		{"a manifest with one document missing its kind", svc("a") + "---\napiVersion: v1\nmetadata: {name: b}\n", []string{"a"}, []string{"GWP100 6:1"}},
		{"helm template", "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Values.name }}\n", nil, []string{"GWP108 4:9"}},
		{"trimming delimiters", "{{- if .Values.enabled }}\napiVersion: v1\n{{- end }}\n", nil, []string{"GWP108 1:1"}},
		{"WSO2 template values are not Helm", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {key: '{{ env \"KEY\" }}'}\n", []string{"c"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, problems := loadFile("f.yaml", []byte(tt.data), Limits{}, nil)
			var names, got []string
			for _, o := range objs {
				names = append(names, o.Name)
			}
			for _, p := range problems {
				got = append(got, p.Code+" "+strings.TrimPrefix(p.Pos.String(), "f.yaml:"))
			}
			if strings.Join(names, ",") != strings.Join(tt.objects, ",") {
				t.Errorf("objects = %v, want %v", names, tt.objects)
			}
			if strings.Join(got, ",") != strings.Join(tt.problems, ",") {
				t.Errorf("problems = %v, want %v (%+v)", got, tt.problems, problems)
			}
		})
	}
}

func TestExcluder(t *testing.T) {
	ex := NewExcluder([]string{"chart/**", "*.json", "**/templates/*.yaml", "Chart.yaml", "k?s.yaml"})
	tests := map[string]bool{
		"chart/templates/x.yaml":   true,
		"repo/chart/values.yaml":   true,
		"package.json":             true,
		"deep/dir/package.json":    true,
		"a/b/templates/svc.yaml":   true,
		"a/b/templates/sub/x.yaml": false,
		"other/Chart.yaml":         true,
		"k8s.yaml":                 true,
		"k88s.yaml":                false,
		"manifests/route.yaml":     false,
		"charts/x.yaml":            false,
		"-":                        false,
	}
	for p, want := range tests {
		if got := ex.Excluded(p); got != want {
			t.Errorf("Excluded(%q) = %v, want %v", p, got, want)
		}
	}
	if NewExcluder(nil).Excluded("anything.yaml") {
		t.Error("no globs excluded a path")
	}
}

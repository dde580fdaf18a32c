package diag

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

func TestPositionString(t *testing.T) {
	tests := []struct {
		pos  Position
		want string
	}{
		{Position{}, ""},
		{Position{Line: 3, Col: 4}, ""},
		{Position{File: "a.yaml"}, "a.yaml"},
		{Position{File: "a.yaml", Line: 3}, "a.yaml:3"},
		{Position{File: "a.yaml", Line: 3, Col: 4}, "a.yaml:3:4"},
	}
	for _, tt := range tests {
		if got := tt.pos.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.pos, got, tt.want)
		}
	}
}

func TestSortOrdersAndDedupes(t *testing.T) {
	at := func(file string, line, col int) Position { return Position{File: file, Line: line, Col: col} }
	ds := []Diagnostic{
		{Code: "GWP102", Pos: at("b.yaml", 1, 1), Message: "x"},
		{Code: "GWP103", Pos: at("a.yaml", 10, 2), Message: "y"},
		{Code: "GWP102", Pos: at("a.yaml", 10, 2), Message: "z"},
		{Code: "GWP102", Pos: at("a.yaml", 9, 30), Message: "w"},
		{Code: "GWP102", Pos: at("b.yaml", 1, 1), Message: "x"}, // exact repeat
	}
	got := Sort(ds)
	var msgs []string
	for _, d := range got {
		msgs = append(msgs, d.Message)
	}
	if want := []string{"w", "z", "y", "x"}; !slices.Equal(msgs, want) {
		t.Errorf("Sort order = %v, want %v", msgs, want)
	}
}

func TestParseSeverity(t *testing.T) {
	for in, want := range map[string]Severity{"info": Info, "warning": Warning, "warn": Warning, "error": Error, "none": None} {
		got, err := ParseSeverity(in)
		if err != nil || got != want {
			t.Errorf("ParseSeverity(%q) = %v, %v", in, got, err)
		}
		if in != "warn" && got.String() != in {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
	if _, err := ParseSeverity("fatal"); err == nil {
		t.Error("ParseSeverity(fatal) succeeded")
	}
	if !(Info < Warning && Warning < Error && Error < None) {
		t.Error("severities are not ordered least severe first")
	}
}

func TestKindOf(t *testing.T) {
	err := Errorf(NotFound, "gateway %s missing", "gw")
	if err.Error() != "gateway gw missing" || KindOf(err) != NotFound {
		t.Errorf("Errorf = %q kind %s", err, KindOf(err))
	}
	wrapped := fmt.Errorf("loading: %w", err)
	if KindOf(wrapped) != NotFound {
		t.Errorf("KindOf(wrapped) = %s", KindOf(wrapped))
	}
	if KindOf(errors.New("plain")) != Internal {
		t.Error("an error without a kind is internal")
	}
}

func TestObjectRef(t *testing.T) {
	r := ObjectRef{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Namespace: "ns", Name: "r"}
	if r.String() != "HTTPRoute/ns/r" {
		t.Errorf("String = %q", r.String())
	}
	if c := (ObjectRef{Kind: "GatewayClass", Name: "c"}); c.String() != "GatewayClass/c" {
		t.Errorf("cluster-scoped String = %q", c.String())
	}
}

package manifest

import "testing"

// TestNodeAPI: the node API reads a file that is not an object the way
// objects are read: merge keys applied, numbers keeping their literal,
// timestamps their text.
func TestNodeAPI(t *testing.T) {
	docs, err := ParseNodes("f.yaml", []byte(`base: &b {limit: 1.0, since: 2001-12-14}
doc:
  <<: *b
  name: x
  hex: 0x1F
`), Limits{})
	if err != nil || len(docs) != 1 {
		t.Fatalf("ParseNodes: %v, %d docs", err, len(docs))
	}
	doc, k := Field(docs[0], "doc")
	if k == nil || NodePos("f.yaml", k).Line != 2 {
		t.Fatalf("Field(doc) key = %v", k)
	}
	if v, _ := Field(doc, "limit"); v == nil {
		t.Errorf("Field(limit) through the merge key: nil")
	}
	name, _ := Field(doc, "name")
	if s, ok := Scalar(name); !ok || s != "x" {
		t.Errorf("Scalar(name) = %q, %v", s, ok)
	}
	raw, err := NodeJSON("f.yaml", doc)
	if want := `{"name":"x","hex":31,"limit":1.0,"since":"2001-12-14"}`; err != nil || string(raw) != want {
		t.Errorf("NodeJSON = %s, %v; want %s", raw, err, want)
	}
}

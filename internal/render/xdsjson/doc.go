// Package xdsjson writes protobuf messages (Envoy's xDS resources) as
// JSON and YAML, fast enough for platforms of tens of thousands of routes.
//
// Writer writes a message exactly as protojson (with proto field names)
// followed by json.Indent would, in one pass and with an Any cache;
// ToYAML streams that JSON into block YAML that sigs.k8s.io/yaml reads
// back as the same data. Both stand in for libraries for speed, so each
// keeps a differential test and a fuzz target against its library
// (FuzzWriter against protojson, FuzzJSONToYAML against sigs.k8s.io/yaml)
// and a benchmark beside it (BenchmarkWriter/BenchmarkProtojson,
// BenchmarkToYAML/BenchmarkLibraryJSONToYAML).
//
// A Writer may be given typed writers (Typed) that write the messages
// they know from their Go structs, without reflection; render/envoy
// generates them for the xDS types and keeps their differential test and
// fuzz target against this package's reflective writer and protojson.
//
// It is the render stage's writer, below render/envoy, which assembles
// documents from it; it imports the protobuf runtime and, of gwpol's,
// only inert. xdsjsontest holds the references, for tests only.
package xdsjson

package envoy

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gwpol/gwpol/internal/benchgen"
	"github.com/gwpol/gwpol/internal/manifest"
)

// TestVectoredOutputMatchesBuffered writes a platform whose Gateways
// share clusters (the kgateway target lists every targeted Service port's
// cluster on each Gateway) to a file, a pipe read in small pieces (short
// and would-block writes) and a buffer in memory: the runs of kept
// clusters go out in vectored writes to the first two, through the
// buffer to the third, and all three hold the same bytes, as JSON and as
// the CLI's inert stream.
func TestVectoredOutputMatchesBuffered(t *testing.T) {
	objs, err := manifest.Parse("platform.yaml", benchgen.Platform(1000), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Render(compileForTest(&manifest.Set{Objects: objs}), Options{Target: "kgateway"})
	if err != nil {
		t.Fatal(err)
	}
	writers := map[string]func(io.Writer) error{
		"json": func(w io.Writer) error { return out.WriteJSON(w, TypeAll) },
		"inert stream": func(w io.Writer) error {
			s := NewInertStream(w, "json", TypeAll)
			for _, g := range out.Gateways {
				if err := s.Gateway(g); err != nil {
					return err
				}
			}
			return s.Close()
		},
	}
	for name, write := range writers {
		var want bytes.Buffer
		if err := write(&want); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(filepath.Join(t.TempDir(), "out.json"))
		if err != nil {
			t.Fatal(err)
		}
		if runtime.GOOS == "linux" && newOutSink(f).vectored == nil {
			t.Fatal("no vectored writes to a file on linux")
		}
		if err := write(f); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(f.Name())
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s to a file: %d bytes, in memory %d", name, len(got), want.Len())
		}
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		read := make(chan []byte)
		go func() {
			var b bytes.Buffer
			chunk := make([]byte, 4096)
			for {
				n, err := pr.Read(chunk)
				b.Write(chunk[:n])
				if err != nil {
					break
				}
			}
			read <- b.Bytes()
		}()
		err = write(pw)
		pw.Close()
		if got := <-read; err != nil || !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s to a pipe: %v, %d bytes, in memory %d", name, err, len(got), want.Len())
		}
		pr.Close()
		if want.Len() < 4*minRunBytes {
			t.Fatalf("%s: only %d bytes: no run long enough", name, want.Len())
		}
	}
}

// TestVectoredOutputReportsWriteErrors: a pipe nobody reads any more
// fails the write, and the document reports it (no panic, no partial
// success).
func TestVectoredOutputReportsWriteErrors(t *testing.T) {
	objs, err := manifest.Parse("platform.yaml", benchgen.Platform(1000), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Render(compileForTest(&manifest.Set{Objects: objs}), Options{Target: "kgateway"})
	if err != nil {
		t.Fatal(err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	pr.Close()
	defer pw.Close()
	if err := out.WriteJSON(pw, TypeAll); err == nil {
		t.Error("writing to a closed pipe succeeded")
	}
}

// TestVectoredRunAllocatesNothing writes runs of a thousand kept slices
// (a Gateway's shared clusters) to a file: after the first run, neither
// the run's list nor the writer's iovec array is made again — at 30k
// routes they were made for every Gateway, a few percent of a render's
// allocation.
func TestVectoredRunAllocatesNothing(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the iovec array is reused on linux")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sink := newOutSink(f)
	units := make([]*jsonUnit, 1000)
	for i := range units {
		units[i] = &jsonUnit{fixed: true, out: bytes.Repeat([]byte{'x'}, 64)}
	}
	w := &docWriter{buf: sink}
	run := func() {
		if n := w.fixedRun(sink, clusterDepth, units, false); n != len(units) {
			t.Fatalf("wrote %d units in the run, want %d", n, len(units))
		}
	}
	run()
	if allocs := testing.AllocsPerRun(20, run); allocs > 2 {
		t.Errorf("a run of %d kept slices made %.0f allocations, want at most 2 (the separators)", len(units), allocs)
	}
	if err := sink.Flush(); err != nil {
		t.Fatal(err)
	}
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	// the first run, AllocsPerRun's warm-up and its 20 runs
	if want := int64(22 * (1000*64 + 999)); fi.Size() != want {
		t.Errorf("wrote %d bytes, want %d", fi.Size(), want)
	}
}

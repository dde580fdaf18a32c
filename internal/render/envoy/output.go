package envoy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/inert"
	"github.com/gwpol/gwpol/internal/parallel"
	"github.com/gwpol/gwpol/internal/render/xdsjson"
)

// ResourceType selects what Marshal writes.
type ResourceType string

// Resource types for --type.
const (
	TypeAll      ResourceType = "all"
	TypeListener ResourceType = "listener"
	TypeRoute    ResourceType = "route"
	TypeCluster  ResourceType = "cluster"
)

// writeProto appends m as compact JSON with proto field names.
func writeProto(buf *bytes.Buffer, m proto.Message) error {
	w := xdsjson.Writer{Buf: buf.AvailableBuffer(), Typed: writeTyped}
	if err := w.Message(m.ProtoReflect()); err != nil {
		return err
	}
	buf.Write(w.Buf)
	return nil
}

// jsonUnit is one message written on its own, indented for its depth in
// the document (or compact). Units are written in parallel, a wave at a
// time, and streamed out in document order (see unitStream).
type jsonUnit struct {
	msg   proto.Message
	depth int
	index int // in document order
	// skip is a field written elsewhere; hole and holeAt say where it
	// goes (see jsonWriter).
	skip         protoreflect.FieldDescriptor
	hole, holeAt int
	out          []byte
	err          error
	// fixed: out was written by an earlier Gateway (a cluster Gateways
	// share, see docWriter.shared) and stays as it is; the unit is the
	// one every later Gateway's list holds.
	fixed bool
	// shares: a cluster Gateways share, written here for the first
	// time; its output is kept for the later Gateways (docWriter.unit).
	shares bool
}

const (
	// unitsPerChunk is how many units one worker writes into one buffer:
	// few enough to balance the cores, many enough that buffers grow
	// rarely.
	unitsPerChunk = 64
	// unitsPerWave bounds how much written output is held at once (a few
	// megabytes), however large the platform.
	unitsPerWave = 8 * unitsPerChunk
)

// unitStream writes units a wave at a time. Chunk i of every wave uses
// writer i, whose buffer (and cache of expanded Anys) the next wave
// reuses once the previous one has been copied out: output costs no
// allocation proportional to its size.
type unitStream struct {
	units   []*jsonUnit
	indent  bool
	inert   bool // each unit written as inert.JSON makes it (docStream.inert)
	done    int  // units [0, done) are written
	writers []*xdsjson.Writer
}

// ready makes sure u is written, writing its wave if needed.
func (s *unitStream) ready(u *jsonUnit) error {
	for u.index >= s.done {
		wave := s.units[s.done:min(s.done+unitsPerWave, len(s.units))]
		chunks := (len(wave) + unitsPerChunk - 1) / unitsPerChunk
		for len(s.writers) < chunks {
			s.writers = append(s.writers, &xdsjson.Writer{Typed: writeTyped})
		}
		parallel.Each(chunks, func(c int) {
			s.writeChunk(s.writers[c], wave[c*unitsPerChunk:min((c+1)*unitsPerChunk, len(wave))])
		})
		s.done += len(wave)
		for _, w := range wave {
			if w.err != nil {
				return w.err
			}
		}
	}
	return nil
}

func (s *unitStream) writeChunk(w *xdsjson.Writer, units []*jsonUnit) {
	w.Indent, w.Buf = s.indent, w.Buf[:0]
	ends := make([]int, len(units))
	for i, u := range units {
		w.Depth, w.Skip, w.HoleAt = u.depth, u.skip, -1
		u.err = w.Message(u.msg.ProtoReflect())
		u.hole, u.holeAt = w.Hole, w.HoleAt
		ends[i] = len(w.Buf)
	}
	start := 0
	for i, u := range units {
		u.out = w.Buf[start:ends[i]:ends[i]]
		if u.holeAt >= 0 {
			u.holeAt -= start
		}
		if s.inert {
			u.out, u.holeAt = inertUnit(u.out, u.holeAt)
		}
		if u.skip != nil {
			// A RouteConfiguration's shell is finished after its
			// virtual hosts, waves later: it keeps its own copy.
			u.out = slices.Clone(u.out)
		}
		start = ends[i]
	}
}

// inertUnit is a unit's output as inert.JSON writes it, and where its
// hole (holeAt, -1 for none) is then. A unit is whole JSON values, so no
// rune is split across units and escaping each alone writes what
// escaping the document would; the halves around a hole are escaped
// apart, the hole moving with what comes before it.
func inertUnit(out []byte, holeAt int) ([]byte, int) {
	if holeAt < 0 {
		return inert.JSON(out), holeAt
	}
	head, tail := inert.JSON(out[:holeAt:holeAt]), inert.JSON(out[holeAt:])
	if len(head) == holeAt && len(tail) == len(out)-holeAt {
		return out, holeAt // nothing to escape: the usual case
	}
	return slices.Concat(head, tail), len(head)
}

func pad(depth int) string { return strings.Repeat("  ", depth) }

// docWriter writes the JSON skeleton around the units, and each unit
// (or part of a shell) as soon as the stream has written it.
type docWriter struct {
	buf    sink
	indent bool
	units  *unitStream
	err    error
	// shared holds, for each cluster several Gateways share
	// (Gateway.sharedBy), the unit its output is kept in: it writes the
	// same bytes wherever it is listed (an element of "clusters", at
	// clusterDepth), so it is written once, in the unit stream of the
	// first Gateway that lists it (in parallel with that Gateway's other
	// units), and every later Gateway's list holds that one fixed unit.
	// A Gateway makes units for its own resources only: with G Gateways
	// sharing S clusters, G×S units were made and dropped (a few hundred
	// megabytes at 30k routes).
	shared map[*clusterv3.Cluster]*jsonUnit
	// run is fixedRun's list of slices, reused from run to run: a run
	// lists every shared cluster of a Gateway (thousands at 30k routes),
	// and a list made per run was, with the writer's, a few percent of
	// what a 30k-route render allocates.
	run [][]byte
}

// clusterDepth is the depth of an element of a Gateway's "clusters".
const clusterDepth = 4

// unit writes u's output, from..to of it (to < 0: to the end).
func (w *docWriter) unit(u *jsonUnit, from, to int) {
	if w.err != nil {
		return
	}
	if u.fixed {
		w.buf.Write(u.out)
		return
	}
	if w.err = w.units.ready(u); w.err != nil {
		return
	}
	if to < 0 {
		to = len(u.out)
	}
	w.buf.Write(u.out[from:to])
	if c, ok := u.msg.(*clusterv3.Cluster); ok && u.shares {
		// whole: a cluster is written in one piece (no hole)
		w.shared[c] = &jsonUnit{out: slices.Clone(u.out), fixed: true}
		u.shares = false
	}
	if to == len(u.out) && u.skip == nil {
		u.out = nil // written: its chunk's buffer is reused by a later wave
	}
}

type sink interface {
	io.Writer
	io.ByteWriter
	io.StringWriter
}

// sinkFlusher is a sink with a buffer to flush.
type sinkFlusher interface {
	sink
	Flush() error
}

func (w *docWriter) nl(depth int) {
	if w.indent {
		w.buf.WriteByte('\n')
		w.buf.WriteString(pad(depth))
	}
}

func (w *docWriter) key(depth int, k string, first bool) {
	if !first {
		w.buf.WriteByte(',')
	}
	w.nl(depth)
	w.buf.WriteString(strconv.Quote(k))
	w.buf.WriteByte(':')
	if w.indent {
		w.buf.WriteByte(' ')
	}
}

// list writes [units…] whose elements sit at depth, each by each; a run
// of fixed units (kept output, which each writes as it is) may go out in
// one vectored write (fixedRun).
func (w *docWriter) list(depth int, units []*jsonUnit, each func(*jsonUnit)) {
	w.buf.WriteByte('[')
	out, vectored := w.buf.(*outSink)
	vectored = vectored && out.vectored != nil
	for i := 0; i < len(units); i++ {
		if vectored && units[i].fixed {
			if n := w.fixedRun(out, depth, units[i:], i > 0); n > 0 {
				i += n - 1
				continue
			}
		}
		if i > 0 {
			w.buf.WriteByte(',')
		}
		w.nl(depth)
		each(units[i])
	}
	if len(units) > 0 {
		w.nl(depth - 1)
	}
	w.buf.WriteByte(']')
}

// fixedRun writes the fixed units units starts with, each after the
// separator list would write before it (after a comma unless first), in
// one vectored write to out, and returns how many it wrote: none when
// the run holds less than minRunBytes (list writes them through the
// buffer then).
func (w *docWriter) fixedRun(out *outSink, depth int, units []*jsonUnit, comma bool) int {
	n, size := 0, 0
	for n < len(units) && units[n].fixed {
		size += len(units[n].out)
		n++
	}
	if size < minRunBytes || w.err != nil {
		return 0
	}
	sep := ""
	if w.indent {
		sep = "\n" + pad(depth)
	}
	first, rest := []byte(sep), []byte(","+sep)
	if comma {
		first = rest
	}
	bufs := w.run[:0]
	for i, u := range units[:n] {
		s := rest
		if i == 0 {
			s = first
		}
		if len(s) > 0 {
			bufs = append(bufs, s)
		}
		if len(u.out) > 0 {
			bufs = append(bufs, u.out)
		}
	}
	_ = out.writeRun(bufs) // sticky: the document's last write reports it, as bufio's would
	clear(bufs)            // the units' bytes are not held past their write
	w.run = bufs[:0]
	return n
}

// rcUnits is a RouteConfiguration marshalled as its shell (everything but
// the virtual hosts) and one unit per virtual host.
type rcUnits struct {
	shell *jsonUnit
	vhs   []*jsonUnit
}

// spliceVHosts writes the RouteConfiguration: its shell with
// "virtual_hosts" in the hole left for it.
func (w *docWriter) spliceVHosts(rc rcUnits, depth int) {
	if len(rc.vhs) == 0 {
		w.unit(rc.shell, 0, -1)
		return
	}
	if w.err != nil {
		return
	}
	if w.err = w.units.ready(rc.shell); w.err != nil {
		return
	}
	at := rc.shell.holeAt
	if at < 0 || rc.shell.hole == 0 {
		w.err = fmt.Errorf("route configuration without a name")
		return
	}
	w.unit(rc.shell, 0, at)
	w.key(depth+1, "virtual_hosts", false)
	w.list(depth+2, rc.vhs, func(u *jsonUnit) { w.unit(u, 0, -1) })
	w.unit(rc.shell, at, -1)
}

// vhostsField is RouteConfiguration.virtual_hosts.
var vhostsField = (&routev3.RouteConfiguration{}).ProtoReflect().Descriptor().Fields().ByName("virtual_hosts")

// Marshal writes the output as
// {"gateways":[{"gateway":{"namespace","name"},"listeners":[…],"routeConfigurations":[…],"clusters":[…]}]},
// as indented JSON (format "json") or YAML ("yaml").
func (o *Output) Marshal(format string, t ResourceType) ([]byte, error) {
	var buf bytes.Buffer
	if format != "yaml" {
		if err := o.WriteJSON(&buf, t); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	if err := o.WriteYAML(&buf, t); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteYAML writes what Marshal(“yaml”, t) returns to dst as it is
// produced: the compact JSON document, transcoded on the way.
func (o *Output) WriteYAML(dst io.Writer, t ResourceType) error {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(pw, 1<<16)
		err := o.write(w, false, t)
		if err == nil {
			err = w.Flush()
		}
		pw.CloseWithError(err)
		done <- err
	}()
	err := xdsjson.ToYAML(dst, pr)
	pr.CloseWithError(errYAMLStopped) // unblocks the producer if the transcoder stopped early
	werr := <-done
	switch {
	case werr != nil && !errors.Is(werr, errYAMLStopped):
		return werr // the document could not be produced
	case errors.Is(err, xdsjson.ErrTranscode):
		return diag.Errorf(diag.Internal, "%v", err)
	}
	return err // nil, or writing to dst failed
}

var errYAMLStopped = errors.New("yaml output stopped")

// WriteJSON writes what Marshal(“json”, t) returns to dst, without
// holding the whole document in memory a second time.
func (o *Output) WriteJSON(dst io.Writer, t ResourceType) error {
	var b sink
	bw, buffered := dst.(*bytes.Buffer)
	if buffered {
		b = bw
	} else {
		w := newOutSink(dst)
		defer w.Flush()
		b = w
	}
	if err := o.write(b, true, t); err != nil {
		return err
	}
	if _, err := b.WriteString("\n"); err != nil {
		return err
	}
	if w, ok := b.(*outSink); ok {
		return w.Flush()
	}
	return nil
}

// write writes the document, indented or compact, to dst.
func (o *Output) write(dst sink, indent bool, t ResourceType) error {
	d := newDocStream(dst, indent, t)
	for _, g := range o.Gateways {
		if err := d.gateway(g); err != nil {
			return err
		}
	}
	return d.close()
}

// Stream writes the document Marshal writes (format "json" or "yaml",
// resource type t) one Gateway at a time, each as it is handed over
// (Options.EachGateway): memory for output is one Gateway's, however
// many there are. Close ends the document; Abort gives up on it.
type Stream struct {
	doc  *docStream
	bw   sinkFlusher
	pw   *io.PipeWriter // yaml: the compact JSON goes to the transcoder
	done chan error     // yaml: the transcoder's result
}

// NewStream starts the document on dst.
func NewStream(dst io.Writer, format string, t ResourceType) *Stream {
	return newStream(dst, format, t, false)
}

// NewInertStream is NewStream writing JSON as inert.JSON makes it (bidi
// and C1 controls as \u escapes; YAML is so already, see xdsjson.ToYAML):
// the bytes inert.NewJSONWriter(dst) would pass on, but each unit is
// escaped by the worker that writes it, and a cluster Gateways share
// once, instead of the whole document on one core as it goes out. Where
// Gateways share many clusters those are most of the output, written
// again for every Gateway (3.8 GB of a 30k-route generated platform).
func NewInertStream(dst io.Writer, format string, t ResourceType) *Stream {
	return newStream(dst, format, t, format != "yaml")
}

func newStream(dst io.Writer, format string, t ResourceType, inert bool) *Stream {
	s := &Stream{}
	if format != "yaml" {
		s.bw = newOutSink(dst)
		s.doc = newDocStream(s.bw, true, t)
		s.doc.inert = inert
		return s
	}
	pr, pw := io.Pipe()
	s.pw, s.done = pw, make(chan error, 1)
	go func() {
		err := xdsjson.ToYAML(dst, pr)
		pr.CloseWithError(errYAMLStopped) // unblocks the producer if the transcoder stopped early
		s.done <- err
	}()
	s.bw = bufio.NewWriterSize(pw, 1<<16)
	s.doc = newDocStream(s.bw, false, t)
	return s
}

// Gateway writes one Gateway's resources.
func (s *Stream) Gateway(g *Gateway) error { return s.doc.gateway(g) }

// Close ends the document and reports what writing it met.
func (s *Stream) Close() error {
	err := s.doc.close()
	if err == nil && s.pw == nil {
		if _, err = s.bw.WriteString("\n"); err == nil {
			err = s.bw.Flush()
		}
	}
	if s.pw == nil {
		return err
	}
	if err == nil {
		err = s.bw.Flush()
	}
	s.pw.CloseWithError(err)
	terr := <-s.done
	switch {
	case err != nil && !errors.Is(err, errYAMLStopped):
		return err
	case errors.Is(terr, xdsjson.ErrTranscode):
		return diag.Errorf(diag.Internal, "%v", terr)
	}
	return terr
}

// Abort ends a document that will not be finished (the render failed).
func (s *Stream) Abort() {
	if s.pw != nil {
		s.pw.CloseWithError(errYAMLStopped)
		<-s.done
	}
}

// docStream writes the document one Gateway at a time: the units of a
// Gateway are written (in parallel, a wave at a time) and copied out
// before the next Gateway is looked at, so a caller can hand it each
// Gateway as it is built and let it go (Stream).
type docStream struct {
	w       *docWriter
	t       ResourceType
	n       int               // Gateways written
	writers []*xdsjson.Writer // reused by every Gateway's unit stream
	// inert: everything is written as inert.JSON makes it (NewInertStream)
	inert bool
}

func newDocStream(dst sink, indent bool, t ResourceType) *docStream {
	d := &docStream{w: &docWriter{buf: dst, indent: indent, shared: map[*clusterv3.Cluster]*jsonUnit{}}, t: t}
	d.w.buf.WriteByte('{')
	d.w.key(1, "gateways", true)
	d.w.buf.WriteByte('[')
	return d
}

func (d *docStream) want(rt ResourceType) bool { return d.t == TypeAll || d.t == "" || d.t == rt }

// gateway writes one element of "gateways".
func (d *docStream) gateway(g *Gateway) error {
	var listeners, clusters, all []*jsonUnit
	var rcs []rcUnits
	// clusters first: those an earlier Gateway wrote (docWriter.shared)
	// are listed as they are, the others (nil) get a unit below
	own := 0
	if d.want(TypeCluster) {
		clusters = make([]*jsonUnit, len(g.Clusters))
		for i, c := range g.Clusters {
			if clusters[i] = d.w.shared[c]; clusters[i] == nil {
				own++
			}
		}
	}
	// One allocation for the Gateway's units: a Gateway of a large
	// platform has thousands of clusters of its own, each a unit.
	units := make([]jsonUnit, 0, d.unitCount(g)+own)
	unit := func(u jsonUnit) *jsonUnit {
		units = append(units, u)
		return &units[len(units)-1]
	}
	all = make([]*jsonUnit, 0, cap(units))
	if d.want(TypeListener) {
		listeners = make([]*jsonUnit, 0, len(g.Listeners))
		for _, l := range g.Listeners {
			u := unit(jsonUnit{msg: l, depth: 4})
			listeners = append(listeners, u)
			all = append(all, u)
		}
	}
	if d.want(TypeRoute) {
		for _, rc := range g.RouteConfigurations {
			ru := rcUnits{shell: unit(jsonUnit{msg: rc, depth: 4, skip: vhostsField})}
			all = append(all, ru.shell)
			for _, vh := range rc.VirtualHosts {
				u := unit(jsonUnit{msg: vh, depth: 6})
				ru.vhs = append(ru.vhs, u)
				all = append(all, u)
			}
			rcs = append(rcs, ru)
		}
	}
	if d.want(TypeCluster) {
		for i, c := range g.Clusters {
			if clusters[i] == nil {
				_, shares := g.sharedBy[c]
				clusters[i] = unit(jsonUnit{msg: c, depth: clusterDepth, shares: shares})
				all = append(all, clusters[i])
			}
		}
	}
	for i, u := range all {
		u.index = i
	}
	w := d.w
	w.units = &unitStream{units: all, indent: w.indent, inert: d.inert, writers: d.writers}
	if d.n > 0 {
		w.buf.WriteByte(',')
	}
	d.n++
	w.nl(2)
	w.buf.WriteByte('{')
	w.key(3, "gateway", true)
	ref, _ := json.Marshal(struct {
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	}{g.Namespace, g.Name})
	if w.indent {
		var b bytes.Buffer
		_ = json.Indent(&b, ref, pad(3), "  ")
		ref = b.Bytes()
	}
	if d.inert {
		ref = inert.JSON(ref) // the rest of the skeleton is ASCII
	}
	w.buf.Write(ref)
	write := func(u *jsonUnit) { w.unit(u, 0, -1) }
	if d.want(TypeListener) {
		w.key(3, "listeners", false)
		w.list(4, listeners, write)
	}
	if d.want(TypeRoute) {
		w.key(3, "routeConfigurations", false)
		shells := make([]*jsonUnit, len(rcs))
		for j := range rcs {
			shells[j] = rcs[j].shell
		}
		w.list(4, shells, func(u *jsonUnit) { w.spliceVHosts(rcs[slices.Index(shells, u)], 4) })
	}
	if d.want(TypeCluster) {
		w.key(3, "clusters", false)
		w.list(4, clusters, write)
	}
	w.nl(2)
	w.buf.WriteByte('}')
	d.writers = w.units.writers
	w.units = nil
	if w.err != nil {
		return diag.Errorf(diag.Internal, "marshal: %v", w.err)
	}
	return nil
}

// unitCount is how many units gateway makes of g's listeners and route
// configurations.
func (d *docStream) unitCount(g *Gateway) int {
	n := 0
	if d.want(TypeListener) {
		n += len(g.Listeners)
	}
	if d.want(TypeRoute) {
		for _, rc := range g.RouteConfigurations {
			n += 1 + len(rc.VirtualHosts)
		}
	}
	return n
}

// close ends the document.
func (d *docStream) close() error {
	w := d.w
	if d.n > 0 {
		w.nl(1)
	}
	w.buf.WriteByte(']')
	w.nl(0)
	// The sink's write errors are sticky (bufio) or impossible
	// (bytes.Buffer): the last write reports them.
	_, err := w.buf.Write([]byte{'}'})
	return err
}

// format1 indents JSON, or converts it to YAML.
func format1(format string, compact []byte) ([]byte, error) {
	if format == "yaml" {
		var out bytes.Buffer
		if err := xdsjson.ToYAML(&out, bytes.NewReader(compact)); err != nil {
			return nil, diag.Errorf(diag.Internal, "%v", err)
		}
		return out.Bytes(), nil
	}
	var out bytes.Buffer
	out.Grow(len(compact) * 2)
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return nil, diag.Errorf(diag.Internal, "json: %v", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// MarshalBootstraps writes one Bootstrap per Gateway: YAML documents
// separated by "---", or a stream of indented JSON objects. With one
// Gateway the output is a file `envoy -c` accepts as is.
func (o *Output) MarshalBootstraps(format string) ([]byte, error) {
	var out bytes.Buffer
	for i, g := range o.Gateways {
		bs, err := g.Bootstrap()
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if err := writeProto(&buf, bs); err != nil {
			return nil, diag.Errorf(diag.Internal, "marshal bootstrap of Gateway %s/%s: %v", g.Namespace, g.Name, err)
		}
		doc, err := format1(format, buf.Bytes())
		if err != nil {
			return nil, err
		}
		if format == "yaml" && i > 0 {
			out.WriteString("---\n")
		}
		out.Write(doc)
	}
	return out.Bytes(), nil
}

// AdminAddress is where a rendered bootstrap's admin interface listens.
const (
	AdminAddress = "127.0.0.1"
	AdminPort    = 19000
)

// SDSFile is where a bootstrap reads the SDS secret of that name (written
// secret/<namespace>/<name>) from: a file the operator provides.
func SDSFile(name string) string {
	return "/etc/envoy/sds/" + strings.TrimPrefix(name, "secret/") + ".yaml"
}

// Bootstrap is a complete static Envoy bootstrap for the Gateway: its
// listeners with their RouteConfigurations inlined, its clusters resolved
// through cluster DNS (nothing serves EDS), TLS certificates read through
// SDS from files, and the admin interface on 127.0.0.1:19000.
func (g *Gateway) Bootstrap() (*bootstrapv3.Bootstrap, error) {
	rcs := map[string]*routev3.RouteConfiguration{}
	for _, rc := range g.RouteConfigurations {
		rcs[rc.Name] = rc
	}
	bs := &bootstrapv3.Bootstrap{
		Node: &corev3.Node{Id: g.Namespace + "/" + g.Name, Cluster: g.Namespace + "/" + g.Name},
		Admin: &bootstrapv3.Admin{Address: &corev3.Address{Address: &corev3.Address_SocketAddress{SocketAddress: &corev3.SocketAddress{
			Address: AdminAddress, PortSpecifier: &corev3.SocketAddress_PortValue{PortValue: AdminPort},
		}}}},
		StaticResources: &bootstrapv3.Bootstrap_StaticResources{},
	}
	for _, l := range g.Listeners {
		sl, err := staticListener(l, rcs, g.invalidShare)
		if err != nil {
			return nil, diag.Errorf(diag.Internal, "bootstrap of Gateway %s/%s: listener %s: %v", g.Namespace, g.Name, l.Name, err)
		}
		bs.StaticResources.Listeners = append(bs.StaticResources.Listeners, sl)
	}
	for _, c := range g.Clusters {
		bs.StaticResources.Clusters = append(bs.StaticResources.Clusters, staticCluster(c))
	}
	if err := validateDeep(bs); err != nil {
		return nil, diag.Errorf(diag.Internal, "bootstrap of Gateway %s/%s is not valid Envoy config: %v", g.Namespace, g.Name, err)
	}
	return bs, nil
}

func staticListener(l *listenerv3.Listener, rcs map[string]*routev3.RouteConfiguration, invalidShare string) (*listenerv3.Listener, error) {
	sl := proto.Clone(l).(*listenerv3.Listener)
	for _, fc := range sl.FilterChains {
		for _, f := range fc.Filters {
			tc := f.GetTypedConfig()
			if tc == nil {
				continue
			}
			m := &hcmv3.HttpConnectionManager{}
			if err := tc.UnmarshalTo(m); err != nil {
				continue // not an HCM
			}
			if rds := m.GetRds(); rds != nil {
				rc, ok := rcs[rds.RouteConfigName]
				if !ok {
					return nil, fmt.Errorf("route configuration %s missing", rds.RouteConfigName)
				}
				m.RouteSpecifier = &hcmv3.HttpConnectionManager_RouteConfig{RouteConfig: staticRouteConfig(rc, invalidShare)}
			}
			f.ConfigType = &listenerv3.Filter_TypedConfig{TypedConfig: mustAny(m)}
		}
		if ts := fc.TransportSocket; ts != nil && ts.GetTypedConfig() != nil {
			tls := &tlsv3.DownstreamTlsContext{}
			if err := ts.GetTypedConfig().UnmarshalTo(tls); err == nil {
				for _, s := range tls.GetCommonTlsContext().GetTlsCertificateSdsSecretConfigs() {
					s.SdsConfig = &corev3.ConfigSource{ResourceApiVersion: corev3.ApiVersion_V3, ConfigSourceSpecifier: &corev3.ConfigSource_PathConfigSource{
						PathConfigSource: &corev3.PathConfigSource{Path: SDSFile(s.Name)},
					}}
				}
				ts.ConfigType = &corev3.TransportSocket_TypedConfig{TypedConfig: mustAny(tls)}
			}
		}
	}
	return sl, nil
}

// staticRouteConfig is a RouteConfiguration as a bootstrap inlines it.
// Envoy checks that the clusters of a static one exist; one that routes a
// share of requests to BlackholeCluster (so that they answer 500) says
// not to (so does one with a share for the target's InvalidShare cluster).
func staticRouteConfig(rc *routev3.RouteConfiguration, invalidShare string) *routev3.RouteConfiguration {
	if !routesToBlackhole(rc, invalidShare) {
		return rc
	}
	out := proto.Clone(rc).(*routev3.RouteConfiguration)
	out.ValidateClusters = wrapperspb.Bool(false)
	return out
}

func routesToBlackhole(rc *routev3.RouteConfiguration, invalidShare string) bool {
	for _, vh := range rc.GetVirtualHosts() {
		for _, r := range vh.GetRoutes() {
			ra := r.GetRoute()
			if ra.GetCluster() == BlackholeCluster {
				return true
			}
			for _, c := range ra.GetWeightedClusters().GetClusters() {
				if c.GetName() == BlackholeCluster || (invalidShare != "" && c.GetName() == invalidShare) {
					return true
				}
			}
		}
	}
	return false
}

// staticCluster turns an EDS cluster into one a standalone Envoy can use:
// a Service cluster resolves <service>.<namespace>.svc.cluster.local, any
// other is STATIC without endpoints.
func staticCluster(c *clusterv3.Cluster) *clusterv3.Cluster {
	sc := proto.Clone(c).(*clusterv3.Cluster)
	if sc.GetType() != clusterv3.Cluster_EDS {
		return sc
	}
	svc := sc.Name // a rule's own cluster is fed its backend's endpoints
	if n := sc.GetEdsClusterConfig().GetServiceName(); n != "" {
		svc = n
	}
	sc.EdsClusterConfig = nil
	sc.LoadAssignment = &endpointv3.ClusterLoadAssignment{ClusterName: sc.Name}
	parts := strings.Split(svc, "_")
	port, err := strconv.Atoi(parts[len(parts)-1])
	if len(parts) == 4 && parts[0] == "kube" && err == nil {
		sc.ClusterDiscoveryType = &clusterv3.Cluster_Type{Type: clusterv3.Cluster_STRICT_DNS}
		sc.LoadAssignment.Endpoints = []*endpointv3.LocalityLbEndpoints{{LbEndpoints: []*endpointv3.LbEndpoint{{
			HostIdentifier: &endpointv3.LbEndpoint_Endpoint{Endpoint: &endpointv3.Endpoint{Address: &corev3.Address{
				Address: &corev3.Address_SocketAddress{SocketAddress: &corev3.SocketAddress{
					Address: parts[2] + "." + parts[1] + ".svc.cluster.local", PortSpecifier: &corev3.SocketAddress_PortValue{PortValue: uint32(port)},
				}},
			}}},
		}}}}
		return sc
	}
	sc.ClusterDiscoveryType = &clusterv3.Cluster_Type{Type: clusterv3.Cluster_STATIC}
	return sc
}

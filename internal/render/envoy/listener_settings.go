package envoy

import (
	"fmt"
	"slices"
	"strings"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// applySettings lays one rendered field's settings of a part ("listener",
// "hcm", "chain" or "tls") over dst: the settings it turns off first,
// then its message.
func applySettings(dst proto.Message, part string, f *rendered, src proto.Message) {
	for _, path := range f.unset {
		rest, ok := strings.CutPrefix(path, part+".")
		if ok {
			clearPath(dst.ProtoReflect(), strings.Split(rest, "."))
		}
	}
	if src != nil && src.ProtoReflect().IsValid() {
		overlay(dst, src)
	}
}

// clearPath clears the field a path of proto field names leads to
// (nothing when a message on the way is not set or a name is unknown).
func clearPath(m protoreflect.Message, path []string) {
	fd := m.Descriptor().Fields().ByName(protoreflect.Name(path[0]))
	if fd == nil || !m.Has(fd) {
		return
	}
	if len(path) == 1 {
		m.Clear(fd)
		return
	}
	if fd.Message() == nil || fd.IsList() || fd.IsMap() {
		return
	}
	clearPath(m.Mutable(fd).Message(), path[1:])
}

// connectionSettings lays the listener and connection settings of
// rendered fields over a listener.
func connectionSettings(el *listenerv3.Listener, fields []*rendered) {
	for _, f := range fields {
		if f.listener != nil || len(f.unset) > 0 {
			applySettings(el, "listener", f, f.listener)
		}
	}
}

// reportSharedListener reports the listener settings (socket options,
// listener filters, buffer and accept limits) a listener's own fields
// make where the listener shares its port, and so its Envoy listener,
// with others: they are left out rather than imposed on the neighbours
// (GWP404). fields are the listener's merge, whole the Gateway's, which
// apply to every listener of the port.
func (gb *gatewayBuild) reportSharedListener(l *topology.Listener, fields, whole []*rendered) {
	for _, f := range fields {
		if slices.Contains(whole, f) || (f.listener == nil && !slices.ContainsFunc(f.unset, func(p string) bool { return strings.HasPrefix(p, "listener.") })) {
			continue
		}
		for _, p := range f.contributors {
			gb.report(p, f.field, policy.LintUnsupportedCapability.Code, fmt.Sprintf(
				"unsupported: field %s sets Envoy listener settings for listener %s, which shares port %d with other listeners of its Gateway; render target %s serves them with one Envoy listener and leaves these settings out",
				f.field, l.Name, l.Port, gb.target.Name))
		}
	}
}

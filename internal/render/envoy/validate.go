package envoy

import (
	"fmt"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/parallel"
)

type validator interface{ ValidateAll() error }

// validateDeep runs ValidateAll on m and on every message packed in an Any
// below it (ValidateAll itself does not look inside Any fields).
func validateDeep(m proto.Message) error {
	if v, ok := m.(validator); ok {
		if err := v.ValidateAll(); err != nil {
			return err
		}
	}
	return eachAny(m.ProtoReflect(), func(a *anypb.Any) error { return validateAny(a) })
}

// validateAny validates the message packed in a.
func validateAny(a *anypb.Any) error {
	if a.GetTypeUrl() == "" {
		return nil // an empty Any (FilterConfig{config: {}}) enables a filter as is
	}
	inner, err := a.UnmarshalNew()
	if err != nil {
		return fmt.Errorf("%s: %w", a.GetTypeUrl(), err)
	}
	if err := validateDeep(inner); err != nil {
		return fmt.Errorf("%s: %w", a.GetTypeUrl(), err)
	}
	return nil
}

var anyName = (&anypb.Any{}).ProtoReflect().Descriptor().FullName()

// eachAny calls f for every Any reachable from m, not descending into them.
// The xDS types render writes are walked by generated code
// (eachAnyTyped, typedwriters_gen.go), which reads their fields without
// asking reflection about each field a type declares.
func eachAny(m protoreflect.Message, f func(*anypb.Any) error) error {
	if walked, err := eachAnyTyped(m.Interface(), f); walked {
		return err
	}
	return eachAnyReflect(m, f)
}

// eachAnyReflect is eachAny through reflection, for the types without a
// generated walk (and the reference the generated ones are tested
// against).
func eachAnyReflect(m protoreflect.Message, f func(*anypb.Any) error) error {
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			if fd.MapValue().Kind() != protoreflect.MessageKind {
				return true
			}
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				err = visit(mv.Message(), f)
				return err == nil
			})
		case fd.Kind() != protoreflect.MessageKind && fd.Kind() != protoreflect.GroupKind:
			return true
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len() && err == nil; i++ {
				err = visit(l.Get(i).Message(), f)
			}
		default:
			err = visit(v.Message(), f)
		}
		return err == nil
	})
	return err
}

func visit(m protoreflect.Message, f func(*anypb.Any) error) error {
	if m.Descriptor().FullName() == anyName {
		a, ok := m.Interface().(*anypb.Any)
		if !ok {
			a = &anypb.Any{}
			proto.Merge(a, m.Interface())
		}
		return f(a)
	}
	return eachAny(m, f)
}

// validate runs the Envoy validation rules on every resource, including
// the configuration packed in typed_config and typed_per_filter_config,
// in parallel; the error reported is the first in resource order.
// Virtual hosts are checked one by one and their RouteConfiguration
// without them, with ValidateAll alone: the only Anys in them are
// typed_per_filter_config values, each validated once when its fragment
// was typed (typedAny), which keeps this linear in routes. So are the
// clusters built here for backends (baseCluster: no Any); those policies
// shaped (gatewayBuild.policyShaped), or that carry protocol options, are
// walked for Anys too. A cluster taken from another Gateway
// (Gateway.sharedBy) was checked when that Gateway was built.
func (g *Gateway) validate() error {
	type check struct {
		kind, name string
		run        func() error
	}
	var checks []check
	for _, l := range g.Listeners {
		checks = append(checks, check{"Listener", l.Name, func() error { return validateDeep(l) }})
	}
	for _, rc := range g.RouteConfigurations {
		checks = append(checks, check{"RouteConfiguration", rc.Name, func() error { return validateShell(rc) }})
		for _, vh := range rc.VirtualHosts {
			checks = append(checks, check{"RouteConfiguration", rc.Name, vh.ValidateAll})
		}
	}
	for _, c := range g.Clusters {
		if by, ok := g.sharedBy[c]; ok && by != g.index {
			continue // validated with the Gateway that built it
		}
		run := c.ValidateAll
		if g.policyShaped[c.Name] || len(c.TypedExtensionProtocolOptions) > 0 {
			run = func() error { return validateDeep(c) }
		}
		checks = append(checks, check{"Cluster", c.Name, run})
	}
	errs := make([]error, len(checks))
	parallel.Chunks(len(checks), 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			errs[i] = checks[i].run()
		}
	})
	for i, err := range errs {
		if err != nil {
			c := checks[i]
			return diag.Errorf(diag.Internal, "rendered %s %s of Gateway %s/%s is not valid Envoy config: %v", c.kind, c.name, g.Namespace, g.Name, err)
		}
	}
	return nil
}

// validateShell is ValidateAll of a RouteConfiguration without its
// virtual hosts (checked on their own).
func validateShell(rc *routev3.RouteConfiguration) error {
	shell := &routev3.RouteConfiguration{}
	for fd, v := range rc.ProtoReflect().Range {
		if fd != vhostsField {
			shell.ProtoReflect().Set(fd, v)
		}
	}
	return shell.ValidateAll()
}

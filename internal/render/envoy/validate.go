package envoy

import (
	"fmt"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/gwpol/gwpol/internal/diag"
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
func eachAny(m protoreflect.Message, f func(*anypb.Any) error) error {
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
// the configuration packed in typed_config and typed_per_filter_config.
// RouteConfigurations are checked with ValidateAll alone: the only Anys in
// them are typed_per_filter_config values, each validated once when its
// fragment was typed (toAny), which keeps this linear in routes.
func (g *Gateway) validate() error {
	check := func(kind, name string, m proto.Message) error {
		var err error
		if rc, ok := m.(*routev3.RouteConfiguration); ok {
			err = rc.ValidateAll()
		} else {
			err = validateDeep(m)
		}
		if err != nil {
			return diag.Errorf(diag.Internal, "rendered %s %s of Gateway %s/%s is not valid Envoy config: %v", kind, name, g.Namespace, g.Name, err)
		}
		return nil
	}
	for _, l := range g.Listeners {
		if err := check("Listener", l.Name, l); err != nil {
			return err
		}
	}
	for _, rc := range g.RouteConfigurations {
		if err := check("RouteConfiguration", rc.Name, rc); err != nil {
			return err
		}
	}
	for _, c := range g.Clusters {
		if err := check("Cluster", c.Name, c); err != nil {
			return err
		}
	}
	return nil
}

package policy

import (
	"strconv"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// A target's names (and session persistence translation) are its
// family's where it declares them, and the first registered target's
// that declares a part where it does not;
// UpstreamTarget is completed the same way.
func TestTargetsCompleteNames(t *testing.T) {
	named := func(tag string) XDSNames {
		return XDSNames{
			Listener:    func(port int32) string { return tag + strconv.Itoa(int(port)) },
			VirtualHost: func(rc, host string) string { return tag + rc + host },
			InvalidBody: tag,
		}
	}
	first := named("first:")
	second := XDSNames{VirtualHost: func(rc, host string) string { return "second:" + host },
		RuleCluster: func(c RuleClusterName) string { return "second:" + c.Name }}
	r := NewRegistry()
	session := func(*gwv1.SessionPersistence, SessionSite) proto.Message {
		return &wrapperspb.StringValue{Value: "second"}
	}
	r.AddTargets(Target{Name: "first", Names: first}, Target{Name: "second", Names: second, SessionPersistence: session})
	ts := r.Targets()
	for _, c := range []struct {
		target, listener, vhost, cluster, body string
	}{
		{"first", "first:80", "first:rch", "second:n", "first:"},
		{"second", "first:80", "second:h", "second:n", "first:"},
		{UpstreamTarget.Name, "first:80", "first:rch", "second:n", "first:"},
	} {
		n := ts[c.target].Names
		if n.Listener == nil || n.VirtualHost == nil || n.RuleCluster == nil {
			t.Fatalf("%s: names left unset: %+v", c.target, n)
		}
		got := [4]string{n.Listener(80), n.VirtualHost("rc", "h"), n.RuleCluster(RuleClusterName{Name: "n"}), n.InvalidBody}
		if want := [4]string{c.listener, c.vhost, c.cluster, c.body}; got != want {
			t.Errorf("%s: names give %q, want %q", c.target, got, want)
		}
		if sp := ts[c.target].SessionPersistence; sp == nil || sp(nil, SessionSite{}).(*wrapperspb.StringValue).GetValue() != "second" {
			t.Errorf("%s: session persistence not the one registered target's that has one", c.target)
		}
		if n.Complete() {
			t.Errorf("%s: complete, though no target names routes, HTTPS chains or stream chains", c.target)
		}
	}
}

package envoy

import (
	"strings"
	"testing"

	localratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/local_ratelimit/v3"
)

// TestTypedAny: a message a kind builds is packed and checked against
// Envoy's validation rules, and packed once per
// distinct message.
func TestTypedAny(t *testing.T) {
	var c anyCache
	if _, err := c.typedAny(&localratelimitv3.LocalRateLimit{}); err == nil || !strings.Contains(err.Error(), "StatPrefix") {
		t.Errorf("a LocalRateLimit without stat_prefix: error %v, want one naming StatPrefix", err)
	}
	a, err := c.typedAny(&localratelimitv3.LocalRateLimit{StatPrefix: "p"})
	if err != nil {
		t.Fatal(err)
	}
	back := &localratelimitv3.LocalRateLimit{}
	if err := a.UnmarshalTo(back); err != nil || back.StatPrefix != "p" {
		t.Errorf("packed %v (%v), want stat_prefix p", back, err)
	}
	again, err := c.typedAny(&localratelimitv3.LocalRateLimit{StatPrefix: "p"})
	if err != nil || again != a {
		t.Errorf("an equal message packed again (%v), want the cached Any", err)
	}
}

package envoygateway

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
)

// valueChecks are the values Envoy Gateway rejects at translation (the
// CRD schema lets them through): durations Go cannot parse, sizes that are
// not whole bytes or out of range, negative circuit-breaker limits, a
// consistent-hash table size that is not a prime ≤ 5000011. Each makes the
// policy Invalid with Envoy Gateway's message. They read the spec Decode
// decoded, in Envoy Gateway's types; paths name the fields for findings.
type valueChecks struct {
	p *policy.Policy
	// at is the path under spec of the settings a builder checks when it
	// runs on a nested ClusterSettings (a backendSettings); nil: the
	// spec's own.
	at []string
	// feature, when set, replaces each message's own builder prefix
	// ("Timeout: …") with the feature's ("JWT: …"): translateTrafficFeatures
	// returns its builders' errors bare, and its caller names the feature.
	feature string
	// bare: each message as the builder returns it, without its builder
	// prefix or the full stop Error2ConditionMsg adds (an error Envoy
	// Gateway writes as it is: an EnvoyProxy's telemetry backendSettings).
	bare bool
}

// checkValues runs the kind's value checks on the decoded spec.
func (k *Kind) checkValues(p *policy.Policy, env *policy.Env) {
	v := valueChecks{p: p}
	switch s := decoded(p).spec.(type) {
	case *egv1a1.BackendTrafficPolicySpec:
		v.backendTraffic(s, env)
	case *egv1a1.EnvoyExtensionPolicySpec:
		v.extension(s, env.Model)
	case *egv1a1.SecurityPolicySpec:
		v.security(s, env)
	case *egv1a1.ClientTrafficPolicySpec:
		v.clientTraffic(s, env.Model)
		v.deprecatedClientTraffic(s)
	}
}

// httpStatuses checks a list of HTTP statuses: the CRD admits 100 to 599
// only (the API server refuses the policy otherwise, and Envoy a health
// check range beyond 600).
func (v valueChecks) httpStatuses(list []egv1a1.HTTPStatus, path ...string) {
	for i, n := range list {
		if n < 100 || n > 599 {
			at := slices.Clone(path)
			at[len(at)-1] += fmt.Sprintf("[%d]", i)
			v.invalid(at, "%v is not an HTTP status: the CRD admits 100 to 599.", n)
		}
	}
}

func (v valueChecks) invalid(path []string, format string, args ...any) {
	field := "spec"
	for _, p := range slices.Concat(v.at, path) {
		field += "." + p
	}
	switch {
	case v.bare:
		if _, bare, ok := strings.Cut(format, ": "); ok {
			format = bare
		}
		format = strings.TrimSuffix(format, ".")
	case v.feature != "":
		if _, bare, ok := strings.Cut(format, ": "); ok {
			format = v.feature + ": " + bare
		}
	}
	v.p.Invalid = append(v.p.Invalid, v.p.Diag(policy.LintPolicyInvalid.Code, diag.Error, field, format, args...))
}

// noEffect is a warning at the field at path: it is set, but Envoy
// Gateway's translation takes nothing from it (why says what it does
// instead).
func (v valueChecks) noEffect(path []string, why string, args ...any) {
	field := "spec." + strings.Join(slices.Concat(v.at, path), ".")
	v.p.Findings = append(v.p.Findings, v.p.Diag(policy.LintPolicyInvalid.Code, diag.Warning, field, why, args...))
}

// duration checks a duration, when set; it reports whether the value is
// invalid.
func duration[S ~string](v valueChecks, s *S, format string, path ...string) bool {
	if s == nil {
		return false
	}
	if _, err := time.ParseDuration(string(*s)); err != nil {
		v.invalid(path, format, string(*s))
		return true
	}
	return false
}

// bytes checks a size, when set: a quantity of whole bytes that fits in
// 32 bits. It reports whether the value is invalid.
func (v valueChecks) bytes(q *resource.Quantity, invalid, outOfRange string, path ...string) bool {
	if q == nil {
		return false
	}
	n, ok := q.AsInt64()
	switch {
	case !ok:
		v.invalid(path, invalid, q.String())
	case n < 0 || n > math.MaxUint32:
		v.invalid(path, outOfRange, q.String())
	default:
		return false
	}
	return true
}

// maxTableSize is the largest consistent-hash table Envoy Gateway accepts.
const maxTableSize = 5000011

func (v valueChecks) tableSize(ch *egv1a1.ConsistentHash) {
	if ch == nil || ch.TableSize == nil {
		return
	}
	if n := *ch.TableSize; n > maxTableSize || !prime(int64(n)) {
		v.invalid([]string{"loadBalancer", "consistentHash", "tableSize"}, "LoadBalancer: ConsistentHash: invalid TableSize value %v.", n)
	}
}

func prime(n int64) bool {
	if n < 2 {
		return false
	}
	for d := int64(2); d*d <= n; d++ {
		if n%d == 0 {
			return false
		}
	}
	return true
}

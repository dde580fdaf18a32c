package envoygateway

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
)

// valueChecks are the values Envoy Gateway rejects at translation (the
// CRD schema lets them through): durations Go cannot parse, sizes that are
// not whole bytes or out of range, negative circuit-breaker limits, a
// consistent-hash table size that is not a prime ≤ 5000011. Each makes the
// policy Invalid with Envoy Gateway's message.
type valueChecks struct {
	p    *policy.Policy
	spec map[string]any
}

// checkValues runs the kind's value checks on the decoded spec.
func (k *Kind) checkValues(p *policy.Policy, raw []byte, env *policy.Env) {
	var spec map[string]any
	if json.Unmarshal(raw, &spec) != nil {
		return
	}
	v := valueChecks{p: p, spec: spec}
	switch k.name {
	case "BackendTrafficPolicy":
		v.backendTraffic(raw, env)
	case "EnvoyExtensionPolicy":
		v.extension(env.Model)
	case "SecurityPolicy":
		v.security(env)
	case "ClientTrafficPolicy":
		v.clientTraffic(env.Model)
		v.deprecatedClientTraffic()
	}
}

// httpStatuses checks a list of HTTP statuses: the CRD admits 100 to 599
// only (the API server refuses the policy otherwise, and Envoy a health
// check range beyond 600).
func (v valueChecks) httpStatuses(path ...string) {
	list, _ := v.at(path...).([]any)
	for i, s := range list {
		if n, ok := s.(float64); ok && (n < 100 || n > 599 || n != float64(int(n))) {
			at := slices.Clone(path)
			at[len(at)-1] += fmt.Sprintf("[%d]", i)
			v.invalid(at, "%v is not an HTTP status: the CRD admits 100 to 599.", n)
		}
	}
}

// at is the value at a path of the spec, nil when absent.
func (v valueChecks) at(path ...string) any {
	var cur any = v.spec
	for _, k := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}

func (v valueChecks) invalid(path []string, format string, args ...any) {
	field := "spec"
	for _, p := range path {
		field += "." + p
	}
	v.p.Invalid = append(v.p.Invalid, v.p.Diag(policy.LintPolicyInvalid.Code, diag.Error, field, format, args...))
}

// duration checks a duration; it reports whether the value is invalid.
func (v valueChecks) duration(format string, path ...string) bool {
	s, ok := v.at(path...).(string)
	if !ok {
		return false
	}
	if _, err := time.ParseDuration(s); err != nil {
		v.invalid(path, format, s)
		return true
	}
	return false
}

// bytes checks a size: a quantity of whole bytes that fits in 32 bits.
// It reports whether the value is invalid.
func (v valueChecks) bytes(invalid, outOfRange string, path ...string) bool {
	s := quantityString(v.at(path...))
	if s == "" {
		return false
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		v.invalid(path, invalid, s)
		return true
	}
	n, ok := q.AsInt64()
	switch {
	case !ok:
		v.invalid(path, invalid, s)
	case n < 0 || n > math.MaxUint32:
		v.invalid(path, outOfRange, s)
	default:
		return false
	}
	return true
}

func quantityString(x any) string {
	switch q := x.(type) {
	case string:
		return q
	case float64:
		return fmt.Sprint(q)
	}
	return ""
}

// maxTableSize is the largest consistent-hash table Envoy Gateway accepts.
const maxTableSize = 5000011

func (v valueChecks) tableSize() {
	path := []string{"loadBalancer", "consistentHash", "tableSize"}
	n, ok := v.at(path...).(float64)
	if !ok {
		return
	}
	if n != math.Trunc(n) || n > maxTableSize || !prime(int64(n)) {
		v.invalid(path, "LoadBalancer: ConsistentHash: invalid TableSize value %v.", n)
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

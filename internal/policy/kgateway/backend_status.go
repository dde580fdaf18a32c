package kgateway

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// kgateway writes one condition on each of its Backends, Accepted, from
// the errors its backend plugin collects while it builds the Backend's IR
// (extensions2/plugins/backend/plugin.go: buildTranslateFunc; status.go:
// buildRegisterCallback → pluginutils.BuildCondition("Backend", errors)),
// whichever routes use the Backend.

// LintKgatewayBackendNotAccepted is the finding of a kgateway Backend whose own
// status kgateway writes Accepted False.
var LintKgatewayBackendNotAccepted = diag.Rule{Code: "GWP221", Name: "kgateway-backend-not-accepted", Severity: diag.Warning,
	Title: "kgateway Backend its controller does not accept",
	Doc: "A kgateway Backend whose IR kgateway's backend plugin cannot build, as its status says (Accepted False, Invalid): a static host without a port, " +
		"an AWS Backend whose credentials Secret is not in its namespace or lacks accessKey or secretKey as text, an AWS Lambda endpointURL that does not parse or names no port, " +
		"an AWS EC2 Backend while the deployment leaves EC2 discovery off (enableAwsEc2Discovery), " +
		"or a priority group that is empty or names a Backend its namespace lacks or another priority groups Backend. " +
		"A Secret whose data is not in the input is not checked. Such a Backend has no cluster (kgateway leaves it out of the config): " +
		"a route to it keeps the cluster's name, and Envoy answers the requests sent to it 500 (the route's cluster-not-found code)."}

var _ policy.LintRuleOwner = Kind{}

// LintRules implements policy.LintRuleOwner.
func (Kind) LintRules() []diag.Rule {
	return []diag.Rule{LintKgatewayBackendNotAccepted, LintKgatewayGatewayAddress, LintKgatewayBackendAnnotationInvalid}
}

// backendProblem is one error kgateway's backend plugin collects on a
// Backend: its message, and the Backend's field at fault.
type backendProblem struct{ path, msg string }

// backendProblems is buildTranslateFunc over one Backend, in its order,
// stopping where it stops (read at 04d3760f, which breaks out of an AWS
// Backend at its first error; the older 55be3817, which predates EC2,
// collects the Lambda's errors on: a Backend with one problem reads the
// same in both). The checks the pinned CRD makes unreachable (an empty
// host, a Lambda ARN without account or function) are left to it; a
// Secret whose data is not in the input is taken as valid. A priority
// groups Backend, whose case the stored plugin.go revisions predate, is
// judged by buildPriorityGroupsIr.
func backendProblems(env *policy.Env, ns string, b *Backend) []backendProblem {
	switch s := b.Spec; {
	case s.Static != nil:
		// static.go: buildStaticIr, at its first host without a port.
		for i, h := range s.Static.Hosts {
			if h.Port == 0 {
				return []backendProblem{{fmt.Sprintf("spec.static.hosts[%d].port", i), "port cannot be empty for host"}}
			}
		}
	case s.Aws != nil && s.Aws.Lambda != nil:
		if p := awsSecretProblem(env, ns, s.Aws, false); p != nil {
			return []backendProblem{*p}
		}
		// aws.go: configureLambdaEndpoint.
		if u := s.Aws.Lambda.EndpointURL; u != nil {
			parsed, err := url.Parse(*u)
			if err != nil {
				return []backendProblem{{"spec.aws.lambda.endpointURL", "failed to parse endpoint URL: " + err.Error()}}
			}
			if _, err := strconv.ParseUint(parsed.Port(), 10, 32); err != nil {
				return []backendProblem{{"spec.aws.lambda.endpointURL", "failed to parse port: " + err.Error()}}
			}
		}
		// aws.go: buildLambdaFilters → configureAWSAuth → deriveStaticSecret.
		if p := awsSecretProblem(env, ns, s.Aws, true); p != nil {
			return []backendProblem{*p}
		}
	case len(s.PriorityGroups) > 0:
		return priorityGroupProblems(env, ns, s.PriorityGroups)
	case s.Aws != nil && s.Aws.Ec2 != nil:
		if !EnableAwsEc2Discovery.Bool(env.Config) {
			return []backendProblem{{"spec.aws.ec2", "aws ec2 discovery is disabled by controller settings"}}
		}
		if p := awsSecretProblem(env, ns, s.Aws, false); p != nil {
			return []backendProblem{*p}
		}
	}
	return nil
}

// priorityGroupProblems is priority_groups.go's buildPriorityGroupsIr
// (read at 4317d1f3), which goes on past an error and reports every one:
// a group must name Backends, each of the Backend's namespace, none of
// them a priority groups Backend itself.
func priorityGroupProblems(env *policy.Env, ns string, groups []PriorityGroup) []backendProblem {
	var out []backendProblem
	for i, g := range groups {
		path := fmt.Sprintf("spec.priorityGroups[%d].backendRefs", i)
		if len(g.BackendRefs) == 0 {
			out = append(out, backendProblem{path, fmt.Sprintf("priority group %d: backendRefs must not be empty", i)})
			continue
		}
		for j, ref := range g.BackendRefs {
			at := fmt.Sprintf("%s[%d]", path, j)
			o, ok := env.Model.Object(model.Key{Group: Group, Kind: KindBackend, Namespace: ns, Name: ref.Name})
			if !ok {
				out = append(out, backendProblem{at, fmt.Sprintf("priority group %d: backend %q not found", i, ref.Name)})
				continue
			}
			var b Backend
			if o.Decode(&b) == nil && len(b.Spec.PriorityGroups) > 0 {
				out = append(out, backendProblem{at, fmt.Sprintf("priority group %d: backend %q is itself a priority groups backend; nested priority groups are not supported", i, ref.Name)})
			}
		}
	}
	return out
}

// awsSecretProblem is plugin.go's loadAWSSecret (keys false: the Secret
// of auth type Secret must be in the Backend's namespace, no
// ReferenceGrant consulted) or aws.go's deriveStaticSecret (keys true:
// accessKey and secretKey present as text, sessionToken text when
// present).
func awsSecretProblem(env *policy.Env, ns string, a *AwsBackend, keys bool) *backendProblem {
	if a.Auth == nil || a.Auth.Type != "Secret" || a.Auth.SecretRef == nil {
		return nil
	}
	const path = "spec.aws.auth.secretRef"
	name := a.Auth.SecretRef.Name
	sec := env.Model.Secret(ns, name)
	if !keys {
		if sec == nil {
			return &backendProblem{path, fmt.Sprintf("Secret %s/%s not found", ns, name)}
		}
		return nil
	}
	if sec == nil || sec.Assumed || len(sec.Keys) == 0 {
		return nil
	}
	var bad []string
	for _, k := range []struct {
		key, word string
		optional  bool
	}{{"accessKey", "access_key", false}, {"secretKey", "secret_key", false}, {"sessionToken", "session_key", true}} {
		v, ok := sec.Value(k.key)
		if (!ok && !k.optional) || (ok && !v.ValidUTF8()) {
			bad = append(bad, k.word+" is not a valid string")
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return &backendProblem{path, "failed to create aws request signing config: failed to derive static secret: " + strings.Join(bad, "\n")}
}

// backendCondition is pluginutils.BuildCondition("Backend", errors).
func backendCondition(problems []backendProblem) policy.ObjectCondition {
	if len(problems) == 0 {
		return policy.ObjectCondition{Type: "Accepted", Status: "True", Reason: "Accepted", Message: "Backend accepted"}
	}
	var b strings.Builder
	if len(problems) == 1 {
		b.WriteString("Backend error:")
	} else {
		fmt.Fprintf(&b, "Backend has %d errors:", len(problems))
	}
	for _, p := range problems {
		b.WriteString(` "` + p.msg + `"`)
	}
	return policy.ObjectCondition{Type: "Accepted", Status: "False", Reason: "Invalid", Message: b.String()}
}

// objectVerdicts implements policy.Family.ObjectVerdicts: the Accepted
// condition kgateway writes on every Backend it watches, used or not, and
// the Services and Backends whose clusters it leaves out without a
// condition, as it cannot read their annotations (Dropped).
func objectVerdicts(env *policy.Env, _ *policy.Set) []policy.ObjectVerdict {
	var out []policy.ObjectVerdict
	for _, o := range env.Model.OfKind(model.GroupKind{Group: Group, Kind: KindBackend}) {
		var b Backend
		if o.Decode(&b) != nil {
			continue // its own findings say why it does not decode
		}
		k := model.KeyOf(o)
		problems := backendProblems(env, k.Namespace, &b)
		v := policy.ObjectVerdict{Object: k, Conditions: []policy.ObjectCondition{backendCondition(problems)}}
		for _, p := range problems {
			v.Diagnostics = append(v.Diagnostics, backendRefusal(o, k, p))
		}
		if msg := annotationProblem(o.Annotations); msg != "" {
			v.Dropped = msg
			v.Diagnostics = append(v.Diagnostics, droppedFinding(o, k, msg))
		}
		out = append(out, v)
	}
	return append(out, droppedServices(env)...)
}

// backendRefusal is the finding of one problem, at its field.
func backendRefusal(o *manifest.Object, k model.Key, p backendProblem) diag.Diagnostic {
	rule := LintKgatewayBackendNotAccepted
	return diag.Diagnostic{Code: rule.Code, Severity: rule.Severity, Object: o.Ref(), Field: p.path, Pos: o.FieldPos(p.path),
		Message: fmt.Sprintf("kgateway does not accept Backend %s/%s: %s; it has no cluster, so the requests routes send it answer 500", k.Namespace, k.Name, strings.ReplaceAll(p.msg, "\n", "; "))}
}

package wso2

import (
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
)

// AnnotationArtifactID is the annotation that gives a RestApi the ID the
// gateway-controller stores it under (common/constants: the artifact-id
// annotation). On a deployment the controller takes it as the API's ID
// unless empty, and refuses one that is not a UUID before it validates
// anything else (pkg/utils/api_deployment.go: DeployAPIConfiguration →
// ValidateUUIDFormat, google/uuid's Parse).
const AnnotationArtifactID = "gateway.api-platform.wso2.com/artifact-id"

// checkArtifactID refuses a RestApi whose artifact-id annotation is set
// but is not a UUID as the controller parses one.
func checkArtifactID(p *policy.Policy) {
	id := p.Obj.Annotations[AnnotationArtifactID]
	if id == "" || isUUID(id) {
		return
	}
	p.Invalid = append(p.Invalid, p.Diag(policy.LintPolicyInvalid.Code, diag.Error, "metadata.annotations",
		"invalid %s annotation: invalid UUID format %q; the gateway-controller refuses the API (it takes the annotation as the API's ID, which must be a UUID such as 0192f3a4-5b6c-7d8e-9f01-23456789abcd)", AnnotationArtifactID, id))
}

// isUUID reports whether s is a UUID in one of the forms google/uuid's
// Parse accepts: 32 hex digits; 8-4-4-4-12 hex digits with hyphens; that
// form with the prefix urn:uuid: (any case); or that form inside one
// character on each side (Parse does not look at them, so {…} and any
// other pair pass).
func isUUID(s string) bool {
	switch len(s) {
	case 32:
		return allHex(s)
	case 36 + 9:
		if !strings.EqualFold(s[:9], "urn:uuid:") {
			return false
		}
		s = s[9:]
	case 36 + 2:
		s = s[1 : len(s)-1]
	case 36:
	default:
		return false
	}
	parts := strings.Split(s, "-")
	if len(parts) != 5 {
		return false
	}
	for i, n := range []int{8, 4, 4, 4, 12} {
		if len(parts[i]) != n || !allHex(parts[i]) {
			return false
		}
	}
	return true
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("0123456789abcdefABCDEF", rune(s[i])) {
			return false
		}
	}
	return true
}

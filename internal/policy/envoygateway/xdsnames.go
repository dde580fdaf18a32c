package envoygateway

import (
	"strconv"
	"strings"

	"github.com/gwpol/gwpol/internal/policy"
)

// XDSNames are the parts of Envoy Gateway's naming gwpol models: the
// clusters of a rule's own. Envoy Gateway's translator builds one cluster
// per route rule, <kind>/<namespace>/<name>/rule/<i>, and one per
// backendRef, …/backend/<j>, when the rule has several or a backendRef's
// policies give it settings of its own; a BackendTrafficPolicy's
// circuit breakers, load balancing, health checks and timeouts go on the
// rule's cluster, which no other route shares. The other resources are
// named as the first registered family names them (policy.XDSNames).
var XDSNames = policy.XDSNames{RuleCluster: ruleClusterName}

// ruleClusterName names a cluster of a rule's own.
func ruleClusterName(c policy.RuleClusterName) string {
	name := strings.ToLower(c.Kind) + "/" + c.Namespace + "/" + c.Name + "/rule/" + strconv.Itoa(c.Rule)
	if c.Backends > 1 || c.Own {
		name += "/backend/" + strconv.Itoa(c.Backend)
	}
	return name
}

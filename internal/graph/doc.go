// Package graph draws the topology and policy attachment as a DOT or
// Mermaid diagram: Gateways → listeners → routes → rules, the policies
// attached at each level, and edges from each field's owner to the
// policies that lost it. Policies that do not take effect — invalid, attached
// nowhere, or overridden on every field they set — are drawn red and dashed
// with their reason, as are rules that answer a fixed status. Namespaces
// and Gateways are clusters, and the drawing can be scoped to some
// Gateways, routes or policies. It is a view: it reads the merge IR only.
//
// graph imports merge and the stages before it.
package graph

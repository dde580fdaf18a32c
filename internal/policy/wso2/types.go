package wso2

import (
	"bytes"
	"encoding/json"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The API group and kinds.
const (
	Group         = "gateway.api-platform.wso2.com"
	KindAPIPolicy = "APIPolicy"
	KindRestAPI   = "RestApi"
)

// APIPolicy is gateway.api-platform.wso2.com/v1 (or v1alpha1) APIPolicy: a list of
// policy references for an HTTPRoute (spec.targetRef, API level) or for
// the rules that reference it by ExtensionRef (no targetRef, rule level).
type APIPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              APIPolicySpec   `json:"spec"`
	Status            json.RawMessage `json:"status,omitempty"`
}

// APIPolicySpec is the spec of an APIPolicy.
type APIPolicySpec struct {
	TargetRef *TargetRef  `json:"targetRef,omitempty"`
	Policies  []PolicyRef `json:"policies"`
}

// TargetRef names the HTTPRoute an API-level APIPolicy applies to. The
// operator only looks for APIPolicies in the route's own namespace, so a
// Namespace other than the policy's never matches a route.
type TargetRef struct {
	Group     string `json:"group"`
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

// PolicyRef is one policy reference as written.
type PolicyRef struct {
	Name               string          `json:"name"`
	Version            Scalar          `json:"version"`
	Params             json.RawMessage `json:"params,omitempty"`
	ExecutionCondition string          `json:"executionCondition,omitempty"`
}

// RestApi is gateway.api-platform.wso2.com/v1 (or v1alpha1) RestApi: an API
// with its own context, upstream, API-level policies and operations.
type RestApi struct { //nolint:revive // the kind's own spelling
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              RestAPISpec     `json:"spec"`
	Status            json.RawMessage `json:"status,omitempty"`
}

// RestAPISpec is the part of a RestApi spec gwpol reads.
type RestAPISpec struct {
	DisplayName string          `json:"displayName,omitempty"`
	Version     Scalar          `json:"version,omitempty"`
	Context     string          `json:"context,omitempty"`
	Upstream    json.RawMessage `json:"upstream,omitempty"`
	// UpstreamDefinitions are named upstreams spec.upstream may refer to
	// (ref); read only by the controller's checks.
	UpstreamDefinitions json.RawMessage `json:"upstreamDefinitions,omitempty"`
	Policies            []PolicyRef     `json:"policies,omitempty"`
	Operations          []Operation     `json:"operations,omitempty"`
}

// Operation is one operation of a RestApi: method and path, or (RestApi
// v1) the match form, which takes precedence when both are set.
type Operation struct {
	Method      string          `json:"method,omitempty"`
	Path        string          `json:"path,omitempty"`
	Match       *OperationMatch `json:"match,omitempty"`
	Description string          `json:"description,omitempty"`
	Policies    []PolicyRef     `json:"policies,omitempty"`
}

// OperationMatch is an operation's match form: method, path {type, value}
// and header matches.
type OperationMatch struct {
	Method string `json:"method,omitempty"`
	Path   struct {
		Type  string `json:"type,omitempty"`
		Value string `json:"value,omitempty"`
	} `json:"path"`
	Headers []struct {
		Name  string `json:"name"`
		Type  string `json:"type,omitempty"`
		Value string `json:"value"`
	} `json:"headers,omitempty"`
}

// Matches are the header matches as "NAME=VALUE" (Exact, the default) or
// "NAME~VALUE" (RegularExpression), in the order written.
func (m *OperationMatch) Matches() []string {
	var out []string
	for _, h := range m.Headers {
		op := "="
		if h.Type == "RegularExpression" {
			op = "~"
		}
		out = append(out, h.Name+op+h.Value)
	}
	return out
}

// Scalar is a string field that users also write as a YAML number
// (version: 1, version: 1.0); it keeps the text as written so a finding
// can quote it.
type Scalar string

// UnmarshalJSON implements json.Unmarshaler: strings as they are, numbers
// and booleans as their text, null as "".
func (s *Scalar) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*s = ""
		return nil
	case len(b) > 0 && b[0] == '"':
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = Scalar(v)
		return nil
	case len(b) > 0 && (b[0] == '{' || b[0] == '['):
		return &json.UnmarshalTypeError{Value: "object", Type: scalarType}
	}
	*s = Scalar(b)
	return nil
}

var scalarType = reflect.TypeFor[string]()

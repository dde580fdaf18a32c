package kgateway

import (
	"encoding/json"
	"fmt"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
)

// localReplyConfig is the connection manager's local_reply_config: each
// mapper's filter is an access log filter, its headers are added to the
// reply (values from Secrets stay placeholders).
func localReplyConfig(v any, in policy.FieldInput, env *policy.Env) (*hcmv3.LocalReplyConfig, error) {
	c, _ := v.(*LocalReplyConfig)
	if c == nil {
		return nil, nil
	}
	out := &hcmv3.LocalReplyConfig{}
	for i, m := range c.Mappers {
		rm, err := responseMapper(m, &fieldRenderer{in: in, env: env})
		if err != nil {
			return nil, fmt.Errorf("localReplies.mappers[%d]: %w", i, err)
		}
		out.Mappers = append(out.Mappers, rm)
	}
	f, err := bodyFormat(c.DefaultBodyFormat)
	if err != nil {
		return nil, fmt.Errorf("localReplies.defaultBodyFormat: %w", err)
	}
	out.BodyFormat = f
	return out, nil
}

func responseMapper(m LocalReplyMapper, r *fieldRenderer) (*hcmv3.ResponseMapper, error) {
	filter, err := accessLogFilter(&m.Filter)
	if err != nil {
		return nil, fmt.Errorf("filter: %w", err)
	}
	out := &hcmv3.ResponseMapper{Filter: filter}
	if m.StatusCode != nil {
		out.StatusCode = wrapperspb.UInt32(uint32(max(*m.StatusCode, 0)))
	}
	if m.Body != nil {
		out.Body = &corev3.DataSource{Specifier: &corev3.DataSource_InlineString{InlineString: *m.Body}}
	}
	if out.BodyFormatOverride, err = bodyFormat(m.BodyFormatOverride); err != nil {
		return nil, fmt.Errorf("bodyFormatOverride: %w", err)
	}
	if err := r.headerSecretsResolve(m.Headers, KindListenerPolicy); err != nil {
		return nil, fmt.Errorf("headers: %w", err)
	}
	for _, mu := range r.mutations(m.Headers) {
		add := mu.GetAppend()
		if add == nil {
			// a reply's headers can only be added or set, as in kgateway
			return nil, fmt.Errorf("headers.remove: a local reply's headers cannot be removed")
		}
		out.HeadersToAdd = append(out.HeadersToAdd, add)
	}
	return out, nil
}

// bodyFormat is a text or JSON substitution format with its content type.
func bodyFormat(b *LocalReplyBodyFormat) (*corev3.SubstitutionFormatString, error) {
	if b == nil {
		return nil, nil
	}
	out := &corev3.SubstitutionFormatString{ContentType: derefOr(b.ContentType)}
	switch {
	case b.Text != nil && b.JSON != nil:
		return nil, fmt.Errorf("text and json are exclusive")
	case b.Text != nil:
		out.Format = &corev3.SubstitutionFormatString_TextFormatSource{
			TextFormatSource: &corev3.DataSource{Specifier: &corev3.DataSource_InlineString{InlineString: *b.Text}}}
	case b.JSON != nil:
		var m map[string]any
		if err := json.Unmarshal(b.JSON.Raw, &m); err != nil {
			return nil, fmt.Errorf("json: %w", err)
		}
		st, err := structpb.NewStruct(m)
		if err != nil {
			return nil, fmt.Errorf("json: %w", err)
		}
		out.Format = &corev3.SubstitutionFormatString_JsonFormat{JsonFormat: st}
	}
	return out, nil
}

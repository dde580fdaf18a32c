package kgateway

import (
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

var _ policy.Untranslator = Kind{}

// ec2Discovery is why a kgateway Backend's EC2 instance selection has no
// effect offline.
const ec2Discovery = "kgateway's EC2 discovery (enableAwsEc2Discovery) finds the instances (filters) and the address of each " +
	"(addressType) at run time through the AWS API and serves them as the cluster's endpoints over EDS; offline there are no " +
	"instances, so gwpol writes the Backend's EDS cluster without endpoints, as kgateway writes the cluster itself"

// xListenerSet is the experimental-channel ListenerSet,
// gateway.networking.x-k8s.io XListenerSet (v1alpha1).
var xListenerSet = model.GroupKind{Group: "gateway.networking.x-k8s.io", Kind: "XListenerSet"}

// xListenerSetUnread is why an XListenerSet is reported: kgateway at the
// pin reads it, gwpol does not.
const xListenerSetUnread = "kgateway reads an XListenerSet as a ListenerSet of its parent Gateway when enableExperimentalGatewayAPIFeatures " +
	"is true (its default; false: it reads none), keeping the XListenerSet kind in the status it writes and in the parentRefs and " +
	"policy targetRefs that select it; gwpol reads only gateway.networking.k8s.io/v1 ListenerSet, so this object's listeners are " +
	"not served in gwpol's output, the routes and policies naming it attach to nothing, and it gets no status (Envoy Gateway v1.9 " +
	"reads no XListenerSet). " +
	"Write it as a gateway.networking.k8s.io/v1 ListenerSet (same spec) to have it modelled"

// UntranslatedFields implements policy.Untranslator: the settings of
// kgateway's objects that only act at run time, outside the config
// kgateway writes (GWP406 where they are set).
func (Kind) UntranslatedFields() []policy.UntranslatedField {
	backend := model.GroupKind{Group: Group, Kind: KindBackend}
	return []policy.UntranslatedField{
		{Kind: backend, Path: "spec.aws.ec2.filters", Reason: ec2Discovery},
		{Kind: backend, Path: "spec.aws.ec2.addressType", Reason: ec2Discovery},
		{Kind: xListenerSet, Reason: xListenerSetUnread},
	}
}

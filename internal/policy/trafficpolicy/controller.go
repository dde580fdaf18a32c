package trafficpolicy

import "github.com/gwpol/gwpol/internal/policy"

// ControllerName is kgateway's controllerName.
const ControllerName = "kgateway.dev/kgateway"

// Controller is kgateway, the controller of this family's kinds: the
// default one, with conditions of its own beside the Gateway API's, and
// replacing whole a rule an invalid policy merges into.
var Controller = policy.Controller{Name: ControllerName, Title: "kgateway", RenderTarget: "kgateway", Default: true, ExtraConditions: true, ReplacesInvalidWhole: true}

package topology

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
)

// ClassVerdict is a controller's own verdict on a GatewayClass whose
// controllerName is its (Options.Classes): the conditions it writes on
// the class, and whether it refuses the class. No other controller
// reconciles a class that names another, so the Gateways of a refused
// class are reconciled by nothing: Graph.Controller reports them not
// managed — their conditions stay as the API server defaults them
// (Pending), render leaves them out, status reports none of their
// routes' parents — and lint reports the class and each of them
// (LintGatewayClassNotAccepted).
type ClassVerdict struct {
	// Controller is the controllerName the class names.
	Controller string
	// Conditions are what the controller writes on the class.
	Conditions []metav1.Condition
	// Refused: the controller reconciles none of the class's Gateways;
	// Why says why, in words a note can end with.
	Refused bool
	Why     string
	// Gateway, on a class the controller accepts, is what it writes on
	// each of the class's Gateways: Conditions over translation's own of
	// their types (Gateway.Reported), and NoListenerStatus when it writes
	// no listener status at all (Gateway.NoListenerStatus). Zero: the
	// Gateway API's conditions stand.
	Gateway GatewayReport
}

// GatewayReport is what a controller without a Controller of its own in
// gwpol writes on the Gateways of a class it accepts (ClassVerdict).
type GatewayReport struct {
	Conditions       []metav1.Condition
	NoListenerStatus bool
	// Pending is the controller's check of each Gateway of the class
	// before it serves any of it (what the Gateway's own annotations
	// name): a Refusal with a reason means it never does — nothing of
	// the Gateway is translated, as for a Controller.Gateway refusal
	// (Gateway.Refused), and the Refusal's Conditions are its status.
	// Nil: every Gateway of the class is served.
	Pending func(m *model.Model, gw *model.Gateway) (Refusal, []diag.Diagnostic)
}

// ClassJudge is a controller's verdict on a GatewayClass (Options.Classes);
// nil when the controller writes nothing of its own on it.
type ClassJudge func(gc *model.GatewayClass) *ClassVerdict

// judgeClasses keeps the verdicts on the input's GatewayClasses
// (Graph.Classes) and reports each refused class and its Gateways.
func (g *Graph) judgeClasses(judge ClassJudge) {
	if judge == nil {
		return
	}
	for _, gc := range g.Model.GatewayClasses {
		v := judge(gc)
		if v == nil {
			continue
		}
		if g.Classes == nil {
			g.Classes = map[string]*ClassVerdict{}
		}
		g.Classes[gc.Name] = v
		if !v.Refused || gc.Src == nil {
			continue
		}
		g.Diagnostics = append(g.Diagnostics, diag.Diagnostic{Code: LintGatewayClassNotAccepted.Code, Severity: LintGatewayClassNotAccepted.Severity,
			Object: gc.Src.Ref(), Field: "metadata.name", Pos: gc.Src.FieldPos("metadata.name"),
			Message: fmt.Sprintf("its controller %s does not accept GatewayClass %s (%s), so it reconciles none of its Gateways", v.Controller, gc.Name, v.Why)})
	}
	if len(g.Classes) == 0 {
		return
	}
	for _, mg := range g.Model.Gateways {
		if v := g.Classes[string(mg.Spec.GatewayClassName)]; v != nil && v.Refused && mg.Src != nil {
			g.Diagnostics = append(g.Diagnostics, diag.Diagnostic{Code: LintGatewayClassNotAccepted.Code, Severity: LintGatewayClassNotAccepted.Severity,
				Object: mg.Src.Ref(), Field: "spec.gatewayClassName", Pos: mg.Src.FieldPos("spec.gatewayClassName"),
				Message: fmt.Sprintf("no controller reconciles this Gateway: %s does not accept its GatewayClass %s (%s); it stays Pending, nothing of it is served, and its routes get no status from it", v.Controller, mg.Spec.GatewayClassName, v.Why)})
		}
	}
}

// ClassRefusal is the verdict refusing gw's GatewayClass, nil when none
// does.
func (g *Graph) ClassRefusal(gw *Gateway) *ClassVerdict {
	if gw == nil || gw.Gateway == nil || len(g.Classes) == 0 {
		return nil
	}
	if v := g.Classes[string(gw.Spec.GatewayClassName)]; v != nil && v.Refused {
		return v
	}
	return nil
}

// ClassNames are the names of the GatewayClasses with a controller's
// verdict (Graph.Classes), sorted.
func (g *Graph) ClassNames() []string {
	names := make([]string, 0, len(g.Classes))
	for n := range g.Classes {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Unmanaged says why no controller in the input manages gw (status:
// Pending; render leaves it out), as a note's words; "" when one does.
func (g *Graph) Unmanaged(gw *Gateway) string {
	if v := g.ClassRefusal(gw); v != nil {
		return fmt.Sprintf("not programmed: its controller %s does not accept Gateway %s/%s's GatewayClass %s (%s), so nothing reconciles it, and render leaves it out",
			v.Controller, gw.Namespace, gw.Name, gw.Spec.GatewayClassName, v.Why)
	}
	if _, managed := g.Controller(gw, ""); managed {
		return ""
	}
	return fmt.Sprintf("not programmed: no GatewayClass in the input is Gateway %s/%s's (%s), so no controller there programs it, and render leaves it out",
		gw.Namespace, gw.Name, gw.Spec.GatewayClassName)
}

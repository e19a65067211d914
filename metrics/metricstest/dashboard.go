package metricstest

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
)

// Query is one panel query of a Grafana dashboard.
type Query struct {
	Panel string // panel title, for messages
	RefID string // the query's letter within its panel
	Expr  string // PromQL with every Grafana variable substituted
}

// Values that stand in for Grafana's built-in interval variables, chosen so
// each query runs against a real Prometheus: $__rate_interval must cover at
// least four scrape intervals, and 5m does for any usual scrape interval.
var builtins = map[string]string{
	"__rate_interval": "5m",
	"__interval":      "1m",
	"__interval_ms":   "60000",
	"__range":         "1h",
	"__range_s":       "3600",
	"__range_ms":      "3600000",
}

// variableRef matches $name, ${name}, ${name:format} and [[name]].
var variableRef = regexp.MustCompile(`\$\{([A-Za-z0-9_]+)(?::[^}]*)?\}|\$([A-Za-z0-9_]+)|\[\[([A-Za-z0-9_]+)\]\]`)

// DashboardQueries returns the PromQL of every panel query of the Grafana
// dashboard at path, in panel order, with Grafana variables substituted:
// the built-in intervals as in DashboardPanels, the dashboard's own query
// and custom variables by their "All" value (".*" unless the variable sets
// allValue), so each query can run against a real Prometheus.
func DashboardQueries(path string) ([]string, error) {
	qs, err := DashboardPanels(path)
	if err != nil {
		return nil, err
	}
	exprs := make([]string, len(qs))
	for i, q := range qs {
		exprs[i] = q.Expr
	}
	return exprs, nil
}

// DashboardPanels is DashboardQueries with the panel and query each
// expression comes from. A panel query without an expression, or one that
// uses a variable the dashboard does not define, is an error.
func DashboardPanels(path string) ([]Query, error) {
	d, err := readDashboard(path)
	if err != nil {
		return nil, err
	}
	if len(d.Panels) == 0 {
		return nil, fmt.Errorf("the dashboard %s has no panels", path)
	}
	values := d.variableValues()

	var out []Query
	var walk func(ps []panel) error
	walk = func(ps []panel) error {
		for _, p := range ps {
			for _, t := range p.Targets {
				if strings.TrimSpace(t.Expr) == "" {
					return fmt.Errorf("panel %q, query %s has no PromQL expression", p.Title, t.RefID)
				}
				expr, err := substitute(t.Expr, values)
				if err != nil {
					return fmt.Errorf("panel %q, query %s: %w", p.Title, t.RefID, err)
				}
				out = append(out, Query{Panel: p.Title, RefID: t.RefID, Expr: expr})
			}
			if err := walk(p.Panels); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(d.Panels); err != nil {
		return nil, err
	}
	return out, nil
}

// DashboardAnnotations returns the PromQL of the dashboard's Prometheus
// annotation queries, with variables substituted as in DashboardPanels;
// Panel holds the annotation's name and RefID is "annotation". Grafana's
// built-in annotation of its own alerts has no expression and is left
// out.
func DashboardAnnotations(path string) ([]Query, error) {
	d, err := readDashboard(path)
	if err != nil {
		return nil, err
	}
	values := d.variableValues()
	var out []Query
	for _, a := range d.Annotations.List {
		if a.BuiltIn != 0 || a.Datasource.Type == "grafana" {
			continue
		}
		if strings.TrimSpace(a.Expr) == "" {
			return nil, fmt.Errorf("annotation %q has no PromQL expression", a.Name)
		}
		expr, err := substitute(a.Expr, values)
		if err != nil {
			return nil, fmt.Errorf("annotation %q: %w", a.Name, err)
		}
		out = append(out, Query{Panel: a.Name, RefID: "annotation", Expr: expr})
	}
	return out, nil
}

func readDashboard(path string) (*dashboard, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the dashboard: %w", err)
	}
	var d dashboard
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("the dashboard %s is not valid JSON: %w", path, err)
	}
	if d.Dashboard != nil {
		// The HTTP API's envelope {"dashboard": {...}} is accepted too.
		d = *d.Dashboard
	}
	return &d, nil
}

// variableValues maps every variable a query may use to the value that
// stands in for it.
func (d *dashboard) variableValues() map[string]string {
	values := map[string]string{}
	for k, v := range builtins {
		values[k] = v
	}
	for _, v := range d.Templating.List {
		switch v.Type {
		case "query", "custom":
			values[v.Name] = ".*"
			if v.AllValue != "" {
				values[v.Name] = v.AllValue
			}
		case "interval", "constant", "textbox":
			values[v.Name] = v.Query
			if s, ok := v.Current.Value.(string); ok && s != "" {
				values[v.Name] = s
			}
		}
	}
	return values
}

func substitute(expr string, values map[string]string) (string, error) {
	var unknown []string
	s := variableRef.ReplaceAllStringFunc(expr, func(ref string) string {
		m := variableRef.FindStringSubmatch(ref)
		name := m[1] + m[2] + m[3]
		if strings.Trim(name, "0123456789") == "" {
			return ref // $1 in label_replace is PromQL's, not Grafana's
		}
		v, ok := values[name]
		if !ok {
			unknown = append(unknown, "$"+name)
			return ref
		}
		return v
	})
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return "", fmt.Errorf("the expression uses %s, which the dashboard does not define", strings.Join(unknown, ", "))
	}
	return s, nil
}

// dashboard holds the few fields of Grafana's dashboard model read here.
type dashboard struct {
	Dashboard  *dashboard `json:"dashboard"`
	Panels     []panel    `json:"panels"`
	Templating struct {
		List []variable `json:"list"`
	} `json:"templating"`
	Annotations struct {
		List []annotation `json:"list"`
	} `json:"annotations"`
}

type annotation struct {
	Name       string `json:"name"`
	BuiltIn    int    `json:"builtIn"`
	Expr       string `json:"expr"`
	Datasource struct {
		Type string `json:"type"`
	} `json:"datasource"`
}

type panel struct {
	Title   string   `json:"title"`
	Targets []target `json:"targets"`
	Panels  []panel  `json:"panels"` // a collapsed row keeps its panels here
}

type target struct {
	RefID string `json:"refId"`
	Expr  string `json:"expr"`
}

type variable struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Query    string `json:"-"`
	AllValue string `json:"allValue"`
	Current  struct {
		Value any `json:"value"`
	} `json:"current"`
	RawQuery json.RawMessage `json:"query"`
}

// UnmarshalJSON accepts a variable's query as a string or as the object
// newer Grafana versions write ({"query": "...", "refId": ...}).
func (v *variable) UnmarshalJSON(b []byte) error {
	type plain variable
	if err := json.Unmarshal(b, (*plain)(v)); err != nil {
		return err
	}
	if len(v.RawQuery) == 0 {
		return nil
	}
	var s string
	if json.Unmarshal(v.RawQuery, &s) == nil {
		v.Query = s
		return nil
	}
	var obj struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(v.RawQuery, &obj); err != nil {
		return fmt.Errorf("variable %q has a query that is neither text nor an object with a query", v.Name)
	}
	v.Query = obj.Query
	return nil
}

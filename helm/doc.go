// Package helm holds the tests of the glimpse Helm chart in glimpse/: they
// lint and render it for the default values and each values file under
// glimpse/ci, decode every object strictly into the Kubernetes API types,
// check how the objects fit together, and check the alerts and the Grafana
// dashboard against the metrics glimpse exports. The chart is the product;
// this package has no code of its own.
package helm

package metrics_test

import "strconv"

func itoa(n int) string { return strconv.Itoa(n) }

func prometheusFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

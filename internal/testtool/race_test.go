package testtool

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Every test that skips under the race detector is run by `make test`'s
// second pass, and that pass runs nothing else: the Makefile's
// UNRACED_TESTS names exactly the tests that call WithoutRace, and
// UNRACED_PKGS exactly their packages.
func TestEveryTestWithoutRaceIsRun(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	listed := func(name string) []string {
		m := regexp.MustCompile(`(?m)^` + name + ` :=((?:.*\\\n)*.*)$`).FindSubmatch(makefile)
		if m == nil {
			t.Fatalf("the Makefile sets no %s", name)
		}
		return strings.FieldsFunc(strings.ReplaceAll(string(m[1]), "\\\n", " "), func(r rune) bool { return r == ' ' || r == '\t' || r == '|' })
	}
	tests, pkgs := listed("UNRACED_TESTS"), listed("UNRACED_PKGS")
	for i, p := range pkgs {
		pkgs[i] = filepath.Clean(p)
	}

	calling := map[string]string{} // test name → its package's folder
	named := map[string][]string{} // test name → every folder with a test of that name
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Body == nil {
				continue
			}
			named[fn.Name.Name] = append(named[fn.Name.Name], dir)
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if ok && sel.Sel.Name == "WithoutRace" {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "testtool" {
						calling[fn.Name.Name] = dir
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(calling) == 0 {
		t.Fatal("no test calls testtool.WithoutRace: the walk found nothing")
	}
	for name, dir := range calling {
		if !slices.Contains(tests, name) {
			t.Errorf("%s (%s) skips under -race but UNRACED_TESTS does not name it: it would never run", name, dir)
		}
		if !slices.Contains(pkgs, dir) {
			t.Errorf("%s skips under -race but UNRACED_PKGS does not hold its package %s: it would never run", name, dir)
		}
	}
	for _, name := range tests {
		if _, ok := calling[name]; !ok {
			t.Errorf("UNRACED_TESTS names %s, which does not call testtool.WithoutRace: it would run twice, or not at all", name)
		}
		for _, dir := range named[name] {
			if dir != calling[name] && slices.Contains(pkgs, dir) {
				t.Errorf("UNRACED_TESTS names %s, and %s has a test of that name that runs under -race too", name, dir)
			}
		}
	}
	for _, p := range pkgs {
		if !slices.Contains(slices.Collect(maps.Values(calling)), p) {
			t.Errorf("UNRACED_PKGS holds %s, where no test calls testtool.WithoutRace", p)
		}
	}
}

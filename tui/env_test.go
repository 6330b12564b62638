package tui

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// parseTUI parses the package's non-test files.
func parseTUI(t *testing.T) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = f
	}
	if len(files) < 10 {
		t.Fatalf("parsed %d files: not the tui package's directory?", len(files))
	}
	return fset, files
}

// mentions reports whether the type expression names ident (as *T, []T,
// func() T, map[…]T, …).
func mentions(expr ast.Expr, ident string) bool {
	found := false
	ast.Inspect(expr, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == ident {
			found = true
		}
		return !found
	})
	return found
}

// No type but the Dashboard itself holds the Dashboard: panes, the status
// line, the overlays and the viewers' adapters are given what they need
// (paneEnv, navigator, shell), so none can reach into its fields.
func TestNoPaneHoldsTheDashboard(t *testing.T) {
	fset, files := parseTUI(t)
	structs := 0
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok || ts.Name.Name == "Dashboard" {
				return true
			}
			structs++
			for _, field := range st.Fields.List {
				if mentions(field.Type, "Dashboard") {
					t.Errorf("%s: type %s has a field of type %s: give it what it needs (paneEnv, navigator, shell) instead",
						fset.Position(field.Pos()), ts.Name.Name, exprString(fset, field.Type))
				}
			}
			return true
		})
	}
	if structs < 15 {
		t.Fatalf("only %d struct types seen", structs)
	}
}

// Only the Dashboard (and the model's own methods) write the model and the
// configuration: a pane reads them.
func TestPanesOnlyReadTheModelAndConfig(t *testing.T) {
	fset, files := parseTUI(t)
	for _, f := range files {
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			if fn.Recv != nil && mentions(fn.Recv.List[0].Type, "Dashboard") {
				continue
			}
			check := func(lhs ast.Expr) {
				if through := writesThrough(lhs); through != "" {
					t.Errorf("%s: %s writes the %s (%s): only the Dashboard does",
						fset.Position(lhs.Pos()), fn.Name.Name, through, exprString(fset, lhs))
				}
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch s := n.(type) {
				case *ast.AssignStmt:
					if s.Tok != token.DEFINE {
						for _, l := range s.Lhs {
							check(l)
						}
					}
				case *ast.IncDecStmt:
					check(s.X)
				}
				return true
			})
		}
	}
}

// writesThrough names what an assignment's target reaches through: "model"
// for x.m.field, "configuration" for x.cfg.Field ("" for neither).
func writesThrough(lhs ast.Expr) string {
	for {
		switch e := lhs.(type) {
		case *ast.IndexExpr:
			lhs = e.X
		case *ast.StarExpr:
			lhs = e.X
		case *ast.SelectorExpr:
			if inner, ok := e.X.(*ast.SelectorExpr); ok {
				switch inner.Sel.Name {
				case "m":
					return "model"
				case "cfg":
					return "configuration"
				}
			}
			lhs = e.X
		default:
			return ""
		}
	}
}

func exprString(fset *token.FileSet, e ast.Expr) string {
	var b bytes.Buffer
	if err := printer.Fprint(&b, fset, e); err != nil {
		return "?"
	}
	return b.String()
}

// No non-test file under tui/ (subpackages included) is over 500 lines.
func TestTUIFilesAtMost500Lines(t *testing.T) {
	n := 0
	err := filepath.WalkDir(".", func(path string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if de.IsDir() && path != "." && (strings.HasPrefix(de.Name(), ".") || de.Name() == "testdata") {
			return filepath.SkipDir
		}
		if de.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		if lines := bytes.Count(b, []byte("\n")); lines > 500 {
			t.Errorf("tui/%s: %d lines (at most 500)", filepath.ToSlash(path), lines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 40 {
		t.Fatalf("only %d files seen", n)
	}
}

package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFunctionLines is the longest a function of the command layer may be:
// a command reads flags, calls a package or two, and prints.
const maxFunctionLines = 80

// TestFunctionLength keeps the command layer thin.
func TestFunctionLength(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var body *ast.BlockStmt
			var what string
			switch fn := n.(type) {
			case *ast.FuncDecl:
				body, what = fn.Body, fn.Name.Name
			case *ast.FuncLit:
				body, what = fn.Body, "a function literal"
			}
			if body == nil {
				return true
			}
			lines := fset.Position(body.End()).Line - fset.Position(n.Pos()).Line + 1
			if lines > maxFunctionLines {
				t.Errorf("%s: %s is %d lines, over %d: move the decisions into a package", fset.Position(n.Pos()), what, lines, maxFunctionLines)
			}
			return true
		})
	}
}

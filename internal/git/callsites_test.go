package git

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// gitCommands are the names of git's commands (git help -a), which a
// string literal must be to be taken for a subcommand by callSites.
var gitCommands = strings.Fields(`add am archive bisect branch bundle checkout cherry-pick clean clone
commit describe diff fetch format-patch gc grep init log maintenance merge mv notes pull push
range-diff rebase reset restore revert rm shortlog show sparse-checkout stash status submodule
switch tag worktree config fast-export fast-import filter-branch mergetool pack-refs prune reflog
remote repack replace annotate blame count-objects difftool fsck merge-tree rerere show-branch
verify-commit verify-tag whatchanged apply checkout-index commit-graph commit-tree hash-object
index-pack merge-file merge-index mktag mktree multi-pack-index pack-objects prune-packed
read-tree symbolic-ref unpack-objects update-index update-ref write-tree cat-file cherry
diff-files diff-index diff-tree for-each-ref for-each-repo ls-files ls-remote ls-tree
merge-base name-rev rev-list rev-parse show-index show-ref unpack-file var verify-pack
fetch-pack send-pack check-attr check-ignore check-mailmap check-ref-format credential hook
interpret-trailers patch-id stripspace`)

// callSite is one git subcommand the project's source names, and the
// file (slash path from the module root) that names it.
type callSite struct {
	sub, file string
	line      int
}

// callSites reads every Go file of the module that runs git (those that
// import this package, and this package's own) and returns each git
// subcommand it names: the first argument after the context of a Run or
// UntrustedBeside call, and the first string of any string-slice
// literal that is a git command's name (an argument list built before
// the call: append([]string{"add", "--"}, …), [][]string{{"status", …}}).
// It also returns each exec of "git" made outside this package.
func callSites(t *testing.T) (sites []callSite, execs []callSite) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	const self = "github.com/session-handoff/session-handoff/internal/git"
	fset := token.NewFileSet()
	type parsed struct {
		rel string
		f   *ast.File
	}
	var files []parsed
	runsGit := map[string]bool{} // directories with a file that imports this package
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "testdata" || strings.HasPrefix(name, ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files = append(files, parsed{rel, f})
		for _, im := range f.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == self || strings.HasPrefix(rel, "internal/git/") {
				runsGit[filepath.Dir(rel)] = true
			}
		}
		return nil
	})
	for _, pf := range files {
		rel := pf.rel
		ours := strings.HasPrefix(rel, "internal/git/")
		pkgRunsGit := runsGit[filepath.Dir(rel)] || ours
		ast.Inspect(pf.f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if execOfGit(n) && !ours {
					execs = append(execs, callSite{sub: "exec", file: rel, line: fset.Position(n.Pos()).Line})
				}
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				// The subcommand is the argument after the context, or,
				// for RunTo, after the writer.
				i, known := map[string]int{"Run": 1, "UntrustedBeside": 1, "RunTo": 2}[sel.Sel.Name]
				if !known || len(n.Args) <= i {
					return true
				}
				if sub, ok := stringLit(n.Args[i]); ok && (pkgRunsGit || slices.Contains(gitCommands, sub)) {
					sites = append(sites, callSite{sub: sub, file: rel, line: fset.Position(n.Pos()).Line})
				}
			case *ast.CompositeLit:
				// cmd/ only parses and prints: its string lists are the
				// tool's own commands, never git's.
				if !pkgRunsGit || !strings.HasPrefix(rel, "internal/") || len(n.Elts) == 0 {
					return true
				}
				if sub, ok := stringLit(n.Elts[0]); ok && slices.Contains(gitCommands, sub) {
					sites = append(sites, callSite{sub: sub, file: rel, line: fset.Position(n.Pos()).Line})
				}
			}
			return true
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	return sites, execs
}

// stringLit is the value of a string literal.
func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// execOfGit reports whether call is exec.Command or exec.CommandContext
// of "git".
func execOfGit(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok || pkg.Name != "exec" || len(call.Args) == 0 {
		return false
	}
	arg := call.Args[0]
	if sel.Sel.Name == "CommandContext" && len(call.Args) > 1 {
		arg = call.Args[1]
	} else if sel.Sel.Name != "Command" {
		return false
	}
	s, ok := stringLit(arg)
	return ok && s == "git"
}

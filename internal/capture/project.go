package capture

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Project detection: what kind of project a directory holds and which
// commands build, test, lint or run it, from the project's own marker
// files. It reads a few small files, each bounded, through an os.Root, so
// a symbolic link can never lead it out of the directory; it runs nothing.
// The commands are fixed strings chosen by this code: nothing read from
// the project (a script's body, a target's recipe) is ever put in one.

// Bounds on project detection.
const (
	// maxMarkerRead bounds what is read of any one marker file.
	maxMarkerRead = 256 << 10
	// MaxChecks is the most checks a project gets (the schema's limit).
	MaxChecks = 50
	// maxCheckPurpose and maxCheckCommand are the schema's limits.
	maxCheckPurpose = 64
	maxCheckCommand = 4096
)

// Project kinds, in the order DetectProject prefers them when a directory
// has the markers of several: the manifests of compiled and packaged
// ecosystems first, as they say most about what the project is;
// package.json after them, as other projects often keep one for tooling;
// requirements.txt, CMakeLists.txt and a Makefile last, as they are found
// beside nearly anything.
var projectKinds = []struct {
	kind    string
	markers []string
}{
	{"go", []string{"go.mod"}},
	{"rust", []string{"Cargo.toml"}},
	{"java-maven", []string{"pom.xml"}},
	{"java-gradle", []string{"build.gradle.kts", "build.gradle", "settings.gradle.kts", "settings.gradle"}}, // or kotlin
	{"elixir", []string{"mix.exs"}},
	{"python", []string{"pyproject.toml", "setup.py", "setup.cfg"}},
	{"php", []string{"composer.json"}},
	{"ruby", []string{"Gemfile"}},
	{"node", []string{"package.json"}},
	{"python", []string{"requirements.txt"}},
	{"cmake", []string{"CMakeLists.txt"}},
	{"make", []string{"GNUmakefile", "makefile", "Makefile"}},
}

// DetectProject tells what kind of project dir holds (go, node, python,
// rust, java-maven, java-gradle, kotlin, ruby, php, elixir, cmake or make;
// "" when it cannot tell) and the checks that build, test, lint or run it.
//
// When several markers are present the kind is the first in this order:
// go.mod, Cargo.toml, pom.xml, build.gradle(.kts), mix.exs, pyproject.toml
// (or setup.py, setup.cfg), composer.json, Gemfile, package.json,
// requirements.txt, CMakeLists.txt, Makefile. The checks are, in order,
// the Makefile's build, test, check, lint, fmt and run targets; the
// commands of the kind; and, when package.json is there but the kind is
// not node, its scripts. At most MaxChecks are returned.
//
// An error is returned only when dir cannot be opened as a directory.
func DetectProject(dir string) (kind string, checks []handoff.Check, err error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", nil, err
	}
	defer root.Close()
	if fi, err := root.Stat("."); err != nil {
		return "", nil, err
	} else if !fi.IsDir() {
		return "", nil, fmt.Errorf("%s: not a directory", dir)
	}
	p := &projectDir{root: root}
	for _, k := range projectKinds {
		for _, m := range k.markers {
			if p.isFile(m) {
				kind = k.kind
				break
			}
		}
		if kind != "" {
			break
		}
	}
	var cs checkList
	if mk := p.makefile(); mk != "" {
		cs.add(makeChecks(p, mk)...)
	}
	switch kind {
	case "go":
		cs.add(goChecks(p)...)
	case "rust":
		cs.add(rustChecks(p)...)
	case "java-maven":
		cs.add(mavenChecks(p)...)
	case "java-gradle":
		var gc []handoff.Check
		kind, gc = gradleChecks(p)
		cs.add(gc...)
	case "elixir":
		cs.add(elixirChecks(p)...)
	case "python":
		cs.add(pythonChecks(p)...)
	case "php":
		cs.add(phpChecks(p)...)
	case "ruby":
		cs.add(rubyChecks(p)...)
	case "node":
		cs.add(nodeChecks(p)...)
	case "cmake":
		cs.add(cmakeChecks(p)...)
	case "make":
		if !cs.has("build") {
			cs.add(handoff.Check{Purpose: "build", Command: "make"})
		}
	}
	if kind != "node" && p.isFile("package.json") {
		cs.add(nodeChecks(p)...)
	}
	return kind, cs.list, nil
}

// checkList collects checks without duplicates, within the schema's
// bounds.
type checkList struct {
	list []handoff.Check
}

func (c *checkList) add(checks ...handoff.Check) {
	for _, ch := range checks {
		if len(c.list) >= MaxChecks || ch.Purpose == "" || ch.Command == "" ||
			len(ch.Purpose) > maxCheckPurpose || len(ch.Command) > maxCheckCommand {
			continue
		}
		dup := false
		for _, x := range c.list {
			if x.Command == ch.Command {
				dup = true
				break
			}
		}
		if !dup {
			c.list = append(c.list, ch)
		}
	}
}

func (c *checkList) has(purpose string) bool {
	for _, x := range c.list {
		if x.Purpose == purpose {
			return true
		}
	}
	return false
}

// projectDir reads a project's files through an os.Root: a path, or a
// symbolic link on it, that leads out of the directory fails.
type projectDir struct {
	root *os.Root
}

func (p *projectDir) isFile(name string) bool {
	fi, err := p.root.Stat(name)
	return err == nil && fi.Mode().IsRegular()
}

func (p *projectDir) isDir(name string) bool {
	fi, err := p.root.Stat(name)
	return err == nil && fi.IsDir()
}

// read returns the first maxMarkerRead bytes of a regular file, and
// whether it could. Anything else (a directory, a device, a pipe, which
// could block) is not opened.
func (p *projectDir) read(name string) ([]byte, bool) {
	if !p.isFile(name) {
		return nil, false
	}
	f, err := p.root.Open(name)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, false // it changed since the Stat
	}
	data, err := io.ReadAll(io.LimitReader(f, maxMarkerRead))
	if err != nil {
		return nil, false
	}
	return data, true
}

// contains reports whether the file name holds any of subs.
func (p *projectDir) contains(name string, subs ...string) bool {
	data, ok := p.read(name)
	if !ok {
		return false
	}
	for _, s := range subs {
		if bytes.Contains(data, []byte(s)) {
			return true
		}
	}
	return false
}

// tomlSections returns the [section] and [[section]] headers of a TOML
// (or INI) file.
func (p *projectDir) tomlSections(name string) map[string]bool {
	data, ok := p.read(name)
	if !ok {
		return nil
	}
	out := map[string]bool{}
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "[") {
			continue
		}
		line = strings.TrimLeft(line, "[")
		if i := strings.IndexByte(line, ']'); i > 0 {
			out[strings.TrimSpace(line[:i])] = true
		}
	}
	return out
}

// hasSection reports whether any of sections names prefix or one of its
// subsections.
func hasSection(sections map[string]bool, prefix string) bool {
	for s := range sections {
		if s == prefix || strings.HasPrefix(s, prefix+".") {
			return true
		}
	}
	return false
}

// makefile returns the name of the makefile make would read, if any.
func (p *projectDir) makefile() string {
	for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
		if p.isFile(name) {
			return name
		}
	}
	return ""
}

// makeTargets are the targets a Makefile is searched for, with the
// purpose of each.
var makeTargets = []struct{ target, purpose string }{
	{"build", "build"}, {"test", "test"}, {"check", "test"}, {"lint", "lint"}, {"fmt", "lint"}, {"run", "run"},
}

func makeChecks(p *projectDir, name string) []handoff.Check {
	data, ok := p.read(name)
	if !ok {
		return nil
	}
	targets := parseMakeTargets(data, len(data) == maxMarkerRead)
	var out []handoff.Check
	for _, t := range makeTargets {
		if targets[t.target] {
			out = append(out, handoff.Check{Purpose: t.purpose, Command: "make " + t.target})
		}
	}
	return out
}

// parseMakeTargets returns the names of the explicit targets a makefile
// defines rules for. It understands comments, continuation lines,
// recipes, variable assignments, define blocks and target-specific
// variables, enough to tell a rule from the rest; it expands nothing. When
// cut, the text was cut at the read limit and its last line is ignored.
func parseMakeTargets(data []byte, cut bool) map[string]bool {
	if cut {
		if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
			data = data[:i+1]
		}
	}
	targets := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), maxMarkerRead+1)
	var logical strings.Builder
	inDefine := 0
	for sc.Scan() {
		raw := strings.TrimRight(sc.Text(), "\r")
		// Join continuation lines into one logical line.
		if strings.HasSuffix(raw, `\`) && !strings.HasSuffix(raw, `\\`) {
			logical.WriteString(strings.TrimSuffix(raw, `\`))
			logical.WriteByte(' ')
			continue
		}
		logical.WriteString(raw)
		line := logical.String()
		logical.Reset()

		trimmed := strings.TrimSpace(line)
		word := firstWord(trimmed)
		if inDefine > 0 {
			switch word {
			case "endef":
				inDefine--
			case "define":
				inDefine++
			}
			continue
		}
		if word == "define" || (word == "override" || word == "export") && firstWord(strings.TrimSpace(trimmed[len(word):])) == "define" {
			inDefine++
			continue
		}
		if strings.HasPrefix(line, "\t") || trimmed == "" || strings.HasPrefix(trimmed, "#") || makeDirectives()[word] {
			continue // a recipe, a blank line, a comment or a directive
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		colon := strings.IndexByte(line, ':')
		if colon <= 0 {
			continue
		}
		head, rest := line[:colon], line[colon+1:]
		// An assignment whose value has a colon: X = a:b, X := y, X ::= y.
		if strings.ContainsAny(head, "=") || strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, ":=") {
			continue
		}
		rest = strings.TrimPrefix(rest, ":") // double-colon rule
		// A target-specific variable (build: CFLAGS += -O2) is not a rule.
		if pre, _, isRecipe := strings.Cut(rest, ";"); !isRecipe && strings.Contains(pre, "=") {
			continue
		}
		for _, t := range strings.Fields(head) {
			if strings.ContainsAny(t, "%$()") || strings.HasPrefix(t, ".") {
				continue // a pattern, a variable, a special target
			}
			targets[t] = true
		}
	}
	return targets
}

// makeDirectives() open lines that are not rules.
var makeDirectives = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"include": true, "-include": true, "sinclude": true, "vpath": true, "ifeq": true, "ifneq": true,
		"ifdef": true, "ifndef": true, "else": true, "endif": true, "export": true, "unexport": true,
		"override": true, "undefine": true, "private": true,
	}
})

func firstWord(s string) string {
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		return s[:i]
	}
	return s
}

func goChecks(p *projectDir) []handoff.Check {
	out := []handoff.Check{
		{Purpose: "build", Command: "go build ./..."},
		{Purpose: "test", Command: "go test ./..."},
		{Purpose: "lint", Command: "go vet ./..."},
	}
	for _, cfg := range []string{".golangci.yml", ".golangci.yaml", ".golangci.toml", ".golangci.json"} {
		if p.isFile(cfg) {
			out = append(out, handoff.Check{Purpose: "lint", Command: "golangci-lint run"})
			break
		}
	}
	return out
}

func rustChecks(p *projectDir) []handoff.Check {
	ws := ""
	if p.tomlSections("Cargo.toml")["workspace"] {
		ws = " --workspace"
	}
	return []handoff.Check{
		{Purpose: "build", Command: "cargo build" + ws},
		{Purpose: "test", Command: "cargo test" + ws},
		{Purpose: "lint", Command: "cargo clippy" + ws},
	}
}

func mavenChecks(p *projectDir) []handoff.Check {
	mvn := "mvn"
	if p.isFile("mvnw") {
		mvn = "./mvnw"
	}
	return []handoff.Check{
		{Purpose: "build", Command: mvn + " -B package -DskipTests"},
		{Purpose: "test", Command: mvn + " -B test"},
	}
}

// gradleChecks tells a Kotlin project from a Java one by the Kotlin
// plugin in its build script.
func gradleChecks(p *projectDir) (string, []handoff.Check) {
	kind := "java-gradle"
	for _, f := range []string{"build.gradle.kts", "build.gradle"} {
		if p.contains(f, "kotlin(", "org.jetbrains.kotlin") {
			kind = "kotlin"
			break
		}
	}
	gradle := "gradle"
	if p.isFile("gradlew") {
		gradle = "./gradlew"
	}
	return kind, []handoff.Check{
		{Purpose: "build", Command: gradle + " assemble"},
		{Purpose: "test", Command: gradle + " test"},
	}
}

func elixirChecks(p *projectDir) []handoff.Check {
	out := []handoff.Check{
		{Purpose: "build", Command: "mix compile"},
		{Purpose: "test", Command: "mix test"},
		{Purpose: "lint", Command: "mix format --check-formatted"},
	}
	if p.isFile(".credo.exs") {
		out = append(out, handoff.Check{Purpose: "lint", Command: "mix credo"})
	}
	return out
}

// pythonChecks runs pytest when the project configures it or has tests,
// ruff and mypy when configured, through uv or poetry when the project
// is managed by one.
func pythonChecks(p *projectDir) []handoff.Check {
	py := p.tomlSections("pyproject.toml")
	cfg := p.tomlSections("setup.cfg")
	tox := p.tomlSections("tox.ini")
	run := ""
	switch {
	case p.isFile("uv.lock"):
		run = "uv run "
	case p.isFile("poetry.lock") || hasSection(py, "tool.poetry"):
		run = "poetry run "
	}
	var out []handoff.Check
	if py["build-system"] {
		out = append(out, handoff.Check{Purpose: "build", Command: "python -m build"})
	}
	if hasSection(py, "tool.pytest") || cfg["tool:pytest"] || tox["pytest"] || p.isFile("pytest.ini") ||
		p.isFile("conftest.py") || p.isDir("tests") || p.isDir("test") {
		out = append(out, handoff.Check{Purpose: "test", Command: run + "pytest"})
	}
	if hasSection(py, "tool.ruff") || p.isFile("ruff.toml") || p.isFile(".ruff.toml") {
		out = append(out, handoff.Check{Purpose: "lint", Command: run + "ruff check ."})
	}
	if hasSection(py, "tool.mypy") || cfg["mypy"] || p.isFile("mypy.ini") || p.isFile(".mypy.ini") {
		out = append(out, handoff.Check{Purpose: "lint", Command: run + "mypy ."})
	}
	return out
}

func phpChecks(p *projectDir) []handoff.Check {
	var out []handoff.Check
	scripts := jsonScripts(p, "composer.json")
	switch {
	case scripts["test"]:
		out = append(out, handoff.Check{Purpose: "test", Command: "composer test"})
	case p.isFile("phpunit.xml") || p.isFile("phpunit.xml.dist"):
		out = append(out, handoff.Check{Purpose: "test", Command: "vendor/bin/phpunit"})
	}
	if scripts["lint"] {
		out = append(out, handoff.Check{Purpose: "lint", Command: "composer lint"})
	}
	if p.isFile("phpstan.neon") || p.isFile("phpstan.neon.dist") {
		out = append(out, handoff.Check{Purpose: "lint", Command: "vendor/bin/phpstan analyse"})
	}
	return out
}

func rubyChecks(p *projectDir) []handoff.Check {
	var out []handoff.Check
	switch {
	case p.isFile(".rspec") || p.isDir("spec"):
		out = append(out, handoff.Check{Purpose: "test", Command: "bundle exec rspec"})
	case p.isFile("Rakefile"):
		out = append(out, handoff.Check{Purpose: "test", Command: "bundle exec rake test"})
	}
	if p.isFile(".rubocop.yml") {
		out = append(out, handoff.Check{Purpose: "lint", Command: "bundle exec rubocop"})
	}
	return out
}

func cmakeChecks(p *projectDir) []handoff.Check {
	out := []handoff.Check{{Purpose: "build", Command: "cmake -S . -B build && cmake --build build"}}
	if p.contains("CMakeLists.txt", "enable_testing", "add_test", "CTest") {
		out = append(out, handoff.Check{Purpose: "test", Command: "ctest --test-dir build"})
	}
	return out
}

// nodeScripts are the package.json scripts used as checks, with the
// purpose of each.
var nodeScripts = []struct{ script, purpose string }{
	{"build", "build"}, {"test", "test"}, {"lint", "lint"}, {"typecheck", "lint"}, {"start", "run"},
}

// nodeChecks runs the package's scripts with the package manager its lock
// file (or its packageManager field) names, npm by default.
func nodeChecks(p *projectDir) []handoff.Check {
	pkg, ok := readJSONObject(p, "package.json")
	if !ok {
		return nil
	}
	scripts := stringMap(pkg["scripts"])
	runner := "npm"
	switch {
	case p.isFile("pnpm-lock.yaml"):
		runner = "pnpm"
	case p.isFile("yarn.lock"):
		runner = "yarn"
	case p.isFile("bun.lockb") || p.isFile("bun.lock"):
		runner = "bun"
	case p.isFile("package-lock.json") || p.isFile("npm-shrinkwrap.json"):
		runner = "npm"
	default:
		if pm, _ := pkg["packageManager"].(string); pm != "" {
			switch name, _, _ := strings.Cut(pm, "@"); name {
			case "pnpm", "yarn", "bun", "npm":
				runner = name
			}
		}
	}
	var out []handoff.Check
	for _, s := range nodeScripts {
		body, ok := scripts[s.script]
		if !ok || strings.TrimSpace(body) == "" || strings.Contains(body, "no test specified") {
			continue // npm init's placeholder test fails by design
		}
		var cmd string
		switch runner {
		case "npm":
			cmd = "npm run " + s.script
			if s.script == "test" || s.script == "start" {
				cmd = "npm " + s.script
			}
		case "bun":
			cmd = "bun run " + s.script
		default:
			cmd = runner + " " + s.script
		}
		out = append(out, handoff.Check{Purpose: s.purpose, Command: cmd})
	}
	return out
}

// readJSONObject reads a bounded JSON object file, strictly: a file that
// is cut at the limit or is not one valid object reads as absent.
func readJSONObject(p *projectDir, name string) (map[string]any, bool) {
	data, ok := p.read(name)
	if !ok || len(data) >= maxMarkerRead {
		return nil, false
	}
	return transcript.DecodeObject(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
}

// jsonScripts returns the names of the scripts in a package.json-like
// file's "scripts" object.
func jsonScripts(p *projectDir, name string) map[string]bool {
	obj, ok := readJSONObject(p, name)
	if !ok {
		return nil
	}
	out := map[string]bool{}
	if m, ok := obj["scripts"].(map[string]any); ok {
		for k := range m {
			out[k] = true
		}
	}
	return out
}

// stringMap keeps the string values of a JSON object.
func stringMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	out := map[string]string{}
	for k, x := range m {
		if x, ok := x.(string); ok {
			out[k] = x
		}
	}
	return out
}

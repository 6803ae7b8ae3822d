package capture

import "strings"

// A failed command stays the session's open failure only while nothing
// later shows it solved (issue 17, item 5): a later success at the same
// action (the same program and subcommand, as `git push` then `git push
// --set-upstream origin main`), or a later successful build or test run,
// which shows the work in a good state whatever failed before it.

// resolves reports whether the successful command ok settles the failed
// command failed.
func resolves(ok, failed string) bool {
	if ok == failed {
		return true
	}
	okKey := actionKey(ok)
	if okKey == "" {
		return false
	}
	return okKey == actionKey(failed) || isBuildOrTest(okKey)
}

// actionKey is what a command does, for comparing: its program and first
// argument that is not an option ("git push", "go test", "npm run"), taken
// from the last step of a && or ; chain (the action; "cd x && make" is
// make) and the first command of a pipeline. Environment assignments and
// sudo/env/time/command prefixes are skipped.
func actionKey(cmd string) string {
	if i := strings.LastIndex(cmd, "&&"); i >= 0 {
		cmd = cmd[i+2:]
	}
	if i := strings.LastIndexByte(cmd, ';'); i >= 0 {
		cmd = cmd[i+1:]
	}
	if i := strings.IndexByte(cmd, '|'); i >= 0 {
		cmd = cmd[:i]
	}
	words := strings.Fields(cmd)
	for len(words) > 0 && (strings.Contains(words[0], "=") || prefixCommands[words[0]]) {
		words = words[1:]
	}
	if len(words) == 0 {
		return ""
	}
	prog := words[0]
	if i := strings.LastIndexByte(prog, '/'); i >= 0 && prog != "./gradlew" {
		prog = prog[i+1:]
	}
	for _, w := range words[1:] {
		if !strings.HasPrefix(w, "-") {
			return prog + " " + w
		}
	}
	return prog
}

var prefixCommands = map[string]bool{"sudo": true, "env": true, "time": true, "command": true, "exec": true, "nice": true}

// buildAndTest are the action keys of build and test runs.
var buildAndTest = map[string]bool{
	"go test": true, "go build": true, "go vet": true, "make": true, "make test": true, "make build": true,
	"make check": true, "npm test": true, "npm run": true, "yarn test": true, "yarn build": true,
	"pnpm test": true, "pnpm build": true, "bun test": true, "cargo test": true, "cargo build": true,
	"cargo check": true, "pytest": true, "tox": true, "mvn test": true, "mvn verify": true,
	"mvn package": true, "gradle test": true, "gradle build": true, "./gradlew test": true,
	"./gradlew build": true, "tsc": true, "deno test": true, "dotnet test": true, "dotnet build": true,
}

// isBuildOrTest reports whether an action key is a build or test run.
func isBuildOrTest(key string) bool {
	prog, _, _ := strings.Cut(key, " ")
	return buildAndTest[key] || prog == "pytest" || prog == "tsc"
}

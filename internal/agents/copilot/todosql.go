package copilot

import (
	"cmp"
	"strings"
	"unicode"
)

// task is one change a sql call made to Copilot's todos table: a task
// added (with its title) or its status changed.
type task struct{ id, text, status string }

// maxPendingSQL bounds the sql calls kept until their outcome, and the
// tokens of one query (four a todo): the record keeps at most 500 todos.
const maxPendingSQL = 500

// todoSQL reads the todo changes of a query Copilot's sql tool ran
// on its todos table, in the two forms the tool's instructions teach:
//
//	INSERT INTO todos (id, title[, description][, status]) VALUES ('a', 'A', …), (…);
//	UPDATE todos SET status = 'done' WHERE id = 'a';
//
// Anything else (other tables, SELECT, expressions, several statements
// but these) yields nothing: the todos then stay as last read.
func todoSQL(q string) []task {
	var out []task
	for _, stmt := range splitSQL(q) {
		toks := sqlTokens(stmt)
		switch {
		case len(toks) > 4 && strings.EqualFold(toks[0], "insert") && strings.EqualFold(toks[1], "into") && strings.EqualFold(toks[2], "todos"):
			out = append(out, todoInsert(toks[3:])...)
		case len(toks) >= 10 && strings.EqualFold(toks[0], "update") && strings.EqualFold(toks[1], "todos") && strings.EqualFold(toks[2], "set"):
			if e, ok := todoUpdate(toks[3:]); ok {
				out = append(out, e)
			}
		}
	}
	return out
}

// todoInsert reads "(cols) VALUES (vals), (vals)".
func todoInsert(toks []string) []task {
	cols, rest, ok := sqlList(toks)
	if !ok || len(rest) == 0 || !strings.EqualFold(rest[0], "values") {
		return nil
	}
	rest = rest[1:]
	var out []task
	for len(rest) > 0 {
		vals, r, ok := sqlList(rest)
		if !ok || len(vals) != len(cols) {
			return out
		}
		row := map[string]string{}
		for i, col := range cols {
			v, ok := sqlString(vals[i])
			if !ok {
				return out
			}
			row[strings.ToLower(col)] = v
		}
		if row["id"] != "" && row["title"] != "" {
			out = append(out, task{id: row["id"], text: row["title"], status: cmp.Or(row["status"], "pending")})
		}
		rest = r
		if len(rest) > 0 && rest[0] == "," {
			rest = rest[1:]
		}
	}
	return out
}

// todoUpdate reads "status = 'x' WHERE id = 'y'".
func todoUpdate(toks []string) (task, bool) {
	if len(toks) != 7 || !strings.EqualFold(toks[0], "status") || toks[1] != "=" || !strings.EqualFold(toks[3], "where") ||
		!strings.EqualFold(toks[4], "id") || toks[5] != "=" {
		return task{}, false
	}
	status, ok1 := sqlString(toks[2])
	id, ok2 := sqlString(toks[6])
	if !ok1 || !ok2 || id == "" || status == "" {
		return task{}, false
	}
	return task{id: id, status: status}, true
}

// sqlList reads "( a , b , … )" from the start of toks.
func sqlList(toks []string) (items, rest []string, ok bool) {
	if len(toks) == 0 || toks[0] != "(" {
		return nil, toks, false
	}
	for i := 1; i+1 < len(toks); i += 2 {
		if strings.ContainsAny(toks[i], "(),=") && toks[i][0] != '\'' {
			return nil, toks, false
		}
		items = append(items, toks[i])
		switch toks[i+1] {
		case ")":
			return items, toks[i+2:], true
		case ",":
		default:
			return nil, toks, false
		}
	}
	return nil, toks, false
}

// sqlString reads a quoted SQL string token.
func sqlString(tok string) (string, bool) {
	if len(tok) < 2 || tok[0] != '\'' || tok[len(tok)-1] != '\'' {
		return "", false
	}
	return strings.ReplaceAll(tok[1:len(tok)-1], "''", "'"), true
}

// splitSQL splits a query at the semicolons outside quotes.
func splitSQL(q string) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(q); i++ {
		switch q[i] {
		case '\'':
			quoted = !quoted
		case ';':
			if !quoted {
				out = append(out, q[start:i])
				start = i + 1
			}
		}
	}
	if strings.TrimSpace(q[start:]) != "" {
		out = append(out, q[start:])
	}
	return out
}

// sqlTokens splits a statement into words, quoted strings (quotes kept,
// ” inside), and the punctuation ( ) , =. An unclosed string or another
// character ends it with nothing: the caller then reads no todo.
func sqlTokens(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			i++
		case ch == '(' || ch == ')' || ch == ',' || ch == '=':
			out = append(out, s[i:i+1])
			i++
		case ch == '\'':
			j := i + 1
			for {
				k := strings.IndexByte(s[j:], '\'')
				if k < 0 {
					return nil
				}
				j += k + 1
				if j < len(s) && s[j] == '\'' {
					j++
					continue
				}
				break
			}
			out = append(out, s[i:j])
			i = j
		case ch == '_' || ch < 0x80 && (unicode.IsLetter(rune(ch)) || unicode.IsDigit(rune(ch))):
			j := i
			for j < len(s) && (s[j] == '_' || s[j] < 0x80 && (unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j])))) {
				j++
			}
			out = append(out, s[i:j])
			i = j
		default:
			return nil
		}
		if len(out) > 4*maxPendingSQL {
			return nil
		}
	}
	return out
}

package mcpserver

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// maxErrorText bounds the text of every error the server sends back. The
// SDK's own errors quote what they refuse whole (a 3 MB title in a
// maxLength error, a method or tool name), so each error is cut to one
// cleaned line of at most this many bytes (untrusted.OneLine) on its way
// out.
const maxErrorText = 1 << 10

// boundErrors is a middleware that bounds the errors of every method, and
// the text of every tool error result, to maxErrorText.
func boundErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil {
			return res, boundError(err)
		}
		if r, ok := res.(*mcp.CallToolResult); ok && r.IsError {
			for _, c := range r.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					t.Text = untrusted.OneLine(t.Text, maxErrorText)
				}
			}
		}
		return res, nil
	}
}

// boundError is err cut to maxErrorText, keeping the JSON-RPC code of an
// error that carries one.
func boundError(err error) error {
	msg := untrusted.OneLine(err.Error(), maxErrorText)
	if msg == err.Error() {
		return err
	}
	if we := (*jsonrpc.Error)(nil); errors.As(err, &we) {
		return &jsonrpc.Error{Code: we.Code, Message: msg}
	}
	return errors.New(msg)
}

// boundResponse cuts the error of a response the SDK made before any
// method ran (a method that is not found) to maxErrorText.
func boundResponse(m jsonrpc.Message) {
	if r, ok := m.(*jsonrpc.Response); ok && r.Error != nil {
		r.Error = boundError(r.Error)
	}
}

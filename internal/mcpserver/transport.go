package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxMessage bounds one message the server reads: room for a save
// with every list full (handoff.MaxItems items of handoff.MaxItem bytes)
// and escaping, far more than any real request.
const DefaultMaxMessage = 4 << 20

// LineTransport is MCP's stdio transport: one JSON-RPC message per line
// (https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#stdio:
// "Messages are delimited by newlines, and MUST NOT contain embedded
// newlines"). Unlike the SDK's own StdioTransport, which ends the
// connection at the first line it cannot decode, it answers a line that
// is not JSON with a JSON-RPC parse error (-32700), one that is JSON but
// not a message, a batch, or longer than MaxMessage with an invalid
// request error (-32600, JSON-RPC 2.0 §5.1), and reads on: a client's
// bad line costs that line, never the session, and a line is never
// buffered past MaxMessage.
type LineTransport struct {
	Reader io.Reader
	Writer io.Writer
	// MaxMessage bounds one line; 0 is DefaultMaxMessage.
	MaxMessage int
}

// Connect implements mcp.Transport.
func (t *LineTransport) Connect(context.Context) (mcp.Connection, error) {
	max := t.MaxMessage
	if max <= 0 {
		max = DefaultMaxMessage
	}
	c := &lineConn{w: t.Writer, r: t.Reader, incoming: make(chan lineMsg), closed: make(chan struct{}), idle: make(chan struct{}, 1)}
	go c.readLoop(max)
	return c, nil
}

// lineMsg is what the read loop hands to Read: a message, or the error
// that ended the input.
type lineMsg struct {
	msg jsonrpc.Message
	err error
}

type lineConn struct {
	r        io.Reader
	w        io.Writer
	writeMu  sync.Mutex
	incoming chan lineMsg
	closed   chan struct{}
	once     sync.Once

	// pending counts the calls read and not yet answered; idle is
	// signalled when it falls to zero. When the input ends, the end is
	// reported only once every call read has its answer, so a client
	// that writes its requests and closes its end still gets them all.
	mu      sync.Mutex
	pending int
	idle    chan struct{}
}

// readLoop reads lines until the input ends, answering bad ones itself.
func (c *lineConn) readLoop(max int) {
	br := bufio.NewReaderSize(c.r, 64<<10)
	for {
		line, tooLong, err := readLine(br, max)
		if tooLong {
			c.reject(jsonrpc.CodeInvalidRequest, fmt.Sprintf("message longer than %d bytes", max))
		} else if m := c.decode(line); m != nil {
			if r, ok := m.(*jsonrpc.Request); ok && r.IsCall() {
				c.mu.Lock()
				c.pending++
				c.mu.Unlock()
			}
			select {
			case c.incoming <- lineMsg{msg: m}:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			c.drain()
			select {
			case c.incoming <- lineMsg{err: err}:
			case <-c.closed:
			}
			return
		}
	}
}

// drainTimeout bounds how long the end of the input waits for answers
// still owed: a call the server never answers cannot keep it alive.
const drainTimeout = 10 * time.Second

// drain waits until every call read has been answered, the connection
// is closed, or drainTimeout has passed.
func (c *lineConn) drain() {
	deadline := time.NewTimer(drainTimeout)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		n := c.pending
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.idle:
		case <-c.closed:
			return
		case <-deadline.C:
			return
		}
	}
}

// answered counts one call answered.
func (c *lineConn) answered() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending > 0 {
		c.pending--
	}
	if c.pending == 0 {
		select {
		case c.idle <- struct{}{}:
		default:
		}
	}
}

// readLine reads one line without its end, keeping at most max bytes: a
// longer line is read to its end and dropped (tooLong). err is the
// error that ended the input (io.EOF), after the last line.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+2 { // +2: the line's own \r\n
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			return nil, true, err
		}
		return bytes.TrimRight(line, "\r\n"), false, err
	}
}

// decode turns one line into a message, or answers it with an error and
// returns nil; a blank line is skipped.
func (c *lineConn) decode(line []byte) jsonrpc.Message {
	trimmed := bytes.TrimSpace(line)
	switch {
	case len(trimmed) == 0:
		return nil
	case !json.Valid(trimmed):
		c.reject(jsonrpc.CodeParseError, "parse error: the line is not JSON")
		return nil
	case trimmed[0] == '[':
		c.reject(jsonrpc.CodeInvalidRequest, "batches are not supported: send one message per line")
		return nil
	}
	m, err := jsonrpc.DecodeMessage(trimmed)
	if err != nil {
		c.reject(jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC 2.0 message")
		return nil
	}
	return m
}

// reject writes an error response whose id is null, as JSON-RPC 2.0 §5
// says when the request's id could not be read.
func (c *lineConn) reject(code int64, msg string) {
	data, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
	_ = c.writeLine(data)
}

func (c *lineConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	select {
	case <-c.closed:
		return mcp.ErrConnectionClosed
	default:
	}
	_, err := c.w.Write(append(data, '\n'))
	return err
}

// Read implements mcp.Connection.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case m := <-c.incoming:
		return m.msg, m.err
	}
}

// Write implements mcp.Connection.
func (c *lineConn) Write(_ context.Context, m jsonrpc.Message) error {
	boundResponse(m)
	data, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return err
	}
	err = c.writeLine(data)
	if _, ok := m.(*jsonrpc.Response); ok {
		c.answered()
	}
	return err
}

// Close implements mcp.Connection; it closes the reader when it can be.
func (c *lineConn) Close() error {
	c.once.Do(func() {
		close(c.closed)
		if rc, ok := c.r.(io.Closer); ok {
			_ = rc.Close()
		}
	})
	return nil
}

// SessionID implements mcp.Connection: stdio has no session id.
func (c *lineConn) SessionID() string { return "" }

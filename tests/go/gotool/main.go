// Command gotool is a tool plugin written against the REAL hashicorp/go-plugin
// (Debian's 1.0.1) and grpc-go, used by tests/interop_go_test.ts to prove
// that our TypeScript kernel can launch and drive a Go plugin.
//
// It serves pluggableharness.tool.v1.ToolService with four tools:
//
//   - echo {text}        → result {text}
//   - count {n}          → n progress events, then result {count: n}
//   - tokens {text}      → CountTokens on the kernel's callback channel
//     (broker ID 1), dialled in a background goroutine started at service
//     registration, like the reference's test fixture does
//   - log {message, session?} → a Log batch through the callback channel
//   - emit {session}      → an Emit of a tool_call event
//   - late_tokens {text} → the same, but broker ID 1 is dialled lazily at the
//     time of the call (like the reference's plugin SDK does), so a call made
//     more than 5 s after launch only succeeds when the kernel re-announces
//     the callback ConnInfo
//
// Every Invoke stream ends with exactly one terminal result or error event.
//
// Build (offline, GOPATH mode) with the generated code of the contracts in
// <ws>/src/phagent/gen/...:
//
//	GO111MODULE=off GOPATH=<ws>:/usr/share/gocode go build ./gotool
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"math"
	"sync"
	"time"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	commonv1 "phagent/gen/pluggableharness/common/v1"
	contentv1 "phagent/gen/pluggableharness/content/v1"
	kernelv1 "phagent/gen/pluggableharness/kernel/v1"
	logv1 "phagent/gen/pluggableharness/log/v1"
	schemav1 "phagent/gen/pluggableharness/schema/v1"
	toolv1 "phagent/gen/pluggableharness/tool/v1"
)

// Constants compiled into both sides of the go-plugin handshake
// (design/plugins.md §2.1).
const (
	magicCookieKey   = "PLUGGABLEHARNESS_AGENT_PLUGIN"
	magicCookieValue = "pluggableharness-agent-v1-a6f3c9d2-plugin-handshake"
	appProtocol      = 1
	callbackBrokerID = 1
)

const (
	pluginName    = "gotool"
	pluginVersion = "0.1.0"
	pluginSource  = "tests/go/gotool"
)

// eagerDialTimeout bounds how long `tokens` waits for the background dial.
const eagerDialTimeout = 10 * time.Second

// callTimeout bounds one CountTokens call.
const callTimeout = 10 * time.Second

// toolPlugin is the go-plugin adapter: plugin side only.
type toolPlugin struct {
	plugin.NetRPCUnsupportedPlugin
}

// GRPCServer registers ToolService and starts the background dial of the
// kernel callback channel. It runs before the handshake line is printed, and
// the kernel only announces broker ID 1 after the handshake, so the dial
// cannot be synchronous here (design/plugins.md §2.11, "the timing trap").
func (p *toolPlugin) GRPCServer(broker *plugin.GRPCBroker, s *grpc.Server) error {
	srv := &toolServer{broker: broker, eagerDone: make(chan struct{})}
	go srv.dialEager()
	toolv1.RegisterToolServiceServer(s, srv)
	return nil
}

// GRPCClient is never used: this binary is only ever the plugin.
func (p *toolPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (interface{}, error) {
	return nil, errors.New("gotool is a plugin, not a host")
}

type toolServer struct {
	toolv1.UnimplementedToolServiceServer

	broker *plugin.GRPCBroker

	// The eager (background) callback connection; eagerDone closes when the
	// dial has finished either way.
	eagerDone chan struct{}
	eagerConn *grpc.ClientConn
	eagerErr  error

	// Serializes lazy dials (go-plugin's broker panics when two Dial calls
	// for the same ID race on one pending entry).
	lazyMu sync.Mutex
}

func (s *toolServer) dialEager() {
	defer close(s.eagerDone)
	conn, err := s.broker.Dial(callbackBrokerID)
	if err != nil {
		s.eagerErr = fmt.Errorf("dial broker ID %d in the background: %w", callbackBrokerID, err)
		log.Printf("[WARN] gotool: %v", s.eagerErr)
		return
	}
	s.eagerConn = conn
	log.Printf("[DEBUG] gotool: kernel callback channel connected (background dial)")
}

func (s *toolServer) eagerKernel() (kernelv1.KernelCallbackServiceClient, error) {
	select {
	case <-s.eagerDone:
	case <-time.After(eagerDialTimeout):
		return nil, fmt.Errorf("the background dial of broker ID %d did not finish within %s", callbackBrokerID, eagerDialTimeout)
	}
	if s.eagerErr != nil {
		return nil, s.eagerErr
	}
	return kernelv1.NewKernelCallbackServiceClient(s.eagerConn), nil
}

// lazyKernel dials broker ID 1 now. go-plugin's Dial waits at most 5 s for a
// matching ConnInfo, and a ConnInfo is parked for at most 5 s: this only
// succeeds late in the plugin's life if the kernel re-announces it.
func (s *toolServer) lazyKernel() (*grpc.ClientConn, error) {
	s.lazyMu.Lock()
	defer s.lazyMu.Unlock()
	conn, err := s.broker.Dial(callbackBrokerID)
	if err != nil {
		return nil, fmt.Errorf("dial broker ID %d at call time: %w", callbackBrokerID, err)
	}
	return conn, nil
}

func countTokens(ctx context.Context, k kernelv1.KernelCallbackServiceClient, text string) (*kernelv1.CountTokensResult, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return k.CountTokens(ctx, &kernelv1.CountTokensRequest{
		Content: []*contentv1.ContentBlock{{
			Block: &contentv1.ContentBlock_Text{Text: &contentv1.TextBlock{Text: text}},
		}},
	})
}

func str(t schemav1.SchemaType) *schemav1.Schema { return &schemav1.Schema{Type: t} }

func object(required []string, props map[string]schemav1.SchemaType) *schemav1.Schema {
	out := &schemav1.Schema{
		Type:       schemav1.SchemaType_SCHEMA_TYPE_OBJECT,
		Properties: map[string]*schemav1.Schema{},
		Required:   required,
	}
	for k, t := range props {
		out.Properties[k] = str(t)
	}
	return out
}

func dataSource(name, description string, in, out *schemav1.Schema, streaming bool) *toolv1.ToolSchema {
	return &toolv1.ToolSchema{
		Name:         name,
		Kind:         toolv1.ToolKind_TOOL_KIND_DATA_SOURCE,
		Risk:         toolv1.RiskClass_RISK_CLASS_READ_ONLY,
		Description:  description,
		InputSchema:  in,
		OutputSchema: out,
		Streaming:    streaming,
		Concurrency:  &toolv1.ConcurrencySpec{Safe: true},
		Idempotent:   true,
	}
}

func (s *toolServer) GetSchema(context.Context, *toolv1.GetSchemaRequest) (*toolv1.GetSchemaResponse, error) {
	text := object([]string{"text"}, map[string]schemav1.SchemaType{"text": schemav1.SchemaType_SCHEMA_TYPE_STRING})
	tokens := object(nil, map[string]schemav1.SchemaType{
		"count": schemav1.SchemaType_SCHEMA_TYPE_NUMBER,
		"exact": schemav1.SchemaType_SCHEMA_TYPE_BOOLEAN,
	})
	return &toolv1.GetSchemaResponse{Tools: []*toolv1.ToolSchema{
		dataSource("echo", "Returns its text argument unchanged.", text, text, false),
		dataSource("count", "Streams n progress events, then returns n.",
			object([]string{"n"}, map[string]schemav1.SchemaType{"n": schemav1.SchemaType_SCHEMA_TYPE_NUMBER}),
			object(nil, map[string]schemav1.SchemaType{"count": schemav1.SchemaType_SCHEMA_TYPE_NUMBER}), true),
		dataSource("tokens", "Counts tokens through the kernel (eager callback dial).", text, tokens, false),
		dataSource("late_tokens", "Counts tokens through the kernel (callback dialled at call time).", text, tokens, false),
	}}, nil
}

func (s *toolServer) Configure(context.Context, *toolv1.ConfigureRequest) (*toolv1.ConfigureResponse, error) {
	return &toolv1.ConfigureResponse{}, nil
}

func (s *toolServer) Describe(context.Context, *toolv1.DescribeRequest) (*toolv1.DescribeResponse, error) {
	return &toolv1.DescribeResponse{Producer: &commonv1.ProducerRef{
		Name:            pluginName,
		Version:         pluginVersion,
		Source:          pluginSource,
		Category:        commonv1.Category_CATEGORY_TOOL,
		ProtocolVersion: appProtocol,
	}}, nil
}

func result(payload map[string]interface{}) (*toolv1.InvokeResponse, error) {
	st, err := structpb.NewStruct(payload)
	if err != nil {
		return nil, err
	}
	return &toolv1.InvokeResponse{Event: &toolv1.ToolEvent{
		Event: &toolv1.ToolEvent_Result{Result: &toolv1.ToolResult{Payload: st}},
	}}, nil
}

func toolError(category toolv1.ToolErrorCategory, message string, retryable bool) *toolv1.InvokeResponse {
	return &toolv1.InvokeResponse{Event: &toolv1.ToolEvent{
		Event: &toolv1.ToolEvent_Error{Error: &toolv1.ToolError{
			Category: category, Message: message, Retryable: retryable,
		}},
	}}
}

func progress(i, n int) *toolv1.InvokeResponse {
	return &toolv1.InvokeResponse{Event: &toolv1.ToolEvent{
		Event: &toolv1.ToolEvent_Progress{Progress: &toolv1.Progress{
			Message:          fmt.Sprint(i),
			FractionComplete: proto.Float64(float64(i+1) / float64(n)),
		}},
	}}
}

func stringArg(args *structpb.Struct, name string) (string, bool) {
	v, ok := args.GetFields()[name]
	if !ok {
		return "", false
	}
	s, ok := v.GetKind().(*structpb.Value_StringValue)
	if !ok {
		return "", false
	}
	return s.StringValue, true
}

// Invoke streams (progress)* (result | error): exactly one terminal event.
func (s *toolServer) Invoke(req *toolv1.InvokeRequest, stream toolv1.ToolService_InvokeServer) error {
	call := req.GetCall()
	args := call.GetArguments()
	ctx := stream.Context()
	invalid := func(format string, a ...interface{}) error {
		return stream.Send(toolError(toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_INVALID_ARGUMENTS, fmt.Sprintf(format, a...), false))
	}
	send := func(payload map[string]interface{}) error {
		r, err := result(payload)
		if err != nil {
			return stream.Send(toolError(toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_UNKNOWN, err.Error(), false))
		}
		return stream.Send(r)
	}

	switch call.GetToolName() {
	case "echo":
		text, ok := stringArg(args, "text")
		if !ok {
			return invalid(`echo needs a string argument "text"`)
		}
		return send(map[string]interface{}{"text": text})

	case "count":
		v, ok := args.GetFields()["n"]
		nf := v.GetNumberValue()
		if !ok || nf < 0 || nf != math.Trunc(nf) {
			return invalid(`count needs a non-negative integer argument "n"`)
		}
		n := int(nf)
		for i := 0; i < n; i++ {
			if ctx.Err() != nil {
				return stream.Send(toolError(toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_CANCELLED, "cancelled", false))
			}
			if err := stream.Send(progress(i, n)); err != nil {
				return err
			}
		}
		return send(map[string]interface{}{"count": n})

	case "tokens", "late_tokens":
		text, ok := stringArg(args, "text")
		if !ok {
			return invalid(`%s needs a string argument "text"`, call.GetToolName())
		}
		var k kernelv1.KernelCallbackServiceClient
		if call.GetToolName() == "tokens" {
			c, err := s.eagerKernel()
			if err != nil {
				return stream.Send(toolError(toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_EXECUTION_FAILED, err.Error(), false))
			}
			k = c
		} else {
			conn, err := s.lazyKernel()
			if err != nil {
				return stream.Send(toolError(toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_EXECUTION_FAILED, err.Error(), false))
			}
			defer conn.Close()
			k = kernelv1.NewKernelCallbackServiceClient(conn)
		}
		res, err := countTokens(ctx, k, text)
		if err != nil {
			return stream.Send(toolError(toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_EXECUTION_FAILED,
				fmt.Sprintf("KernelCallbackService.CountTokens: %v", err), true))
		}
		return send(map[string]interface{}{"count": float64(res.GetCount()), "exact": res.GetExact()})

	case "log", "emit":
		// log {message, session?}: one Log batch (an INFO and a FATAL entry);
		// emit {session}: one tool_call event. Both on the eager channel.
		k, err := s.eagerKernel()
		if err != nil {
			return stream.Send(toolError(toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_EXECUTION_FAILED, err.Error(), false))
		}
		sessionID, _ := stringArg(args, "session")
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		defer cancel()
		if call.GetToolName() == "log" {
			message, _ := stringArg(args, "message")
			req := &kernelv1.LogRequest{Entries: []*logv1.LogEntry{
				{Level: logv1.LogLevel_LOG_LEVEL_INFO, Logger: "interop", Message: message, Time: timestamppb.Now()},
				{Level: logv1.LogLevel_LOG_LEVEL_FATAL, Message: message + " (fatal is only a label)", Time: timestamppb.Now()},
			}}
			if sessionID != "" {
				req.SessionId = &sessionID
			}
			if _, err := k.Log(cctx, req); err != nil {
				return send(map[string]interface{}{"error": err.Error()})
			}
			return send(map[string]interface{}{"logged": 2})
		}
		res, err := k.Emit(cctx, &kernelv1.EmitRequest{
			SessionId:     sessionID,
			Kind:          kernelv1.EventKind_EVENT_KIND_TOOL_CALL,
			SchemaVersion: "1",
			Payload:       []byte("from Go"),
		})
		if err != nil {
			return send(map[string]interface{}{"error": err.Error()})
		}
		return send(map[string]interface{}{"id": res.GetId(), "sequence": float64(res.GetSequence())})

	default:
		return invalid("unknown tool %q", call.GetToolName())
	}
}

func main() {
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: plugin.HandshakeConfig{
			ProtocolVersion:  appProtocol,
			MagicCookieKey:   magicCookieKey,
			MagicCookieValue: magicCookieValue,
		},
		Plugins:    map[string]plugin.Plugin{"tool": &toolPlugin{}},
		GRPCServer: plugin.DefaultGRPCServer,
	})
}

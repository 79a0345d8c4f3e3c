// Command gohost is a plugin HOST written against the REAL hashicorp/go-plugin
// (Debian's 1.0.1) and grpc-go. tests/interop_go_test.ts runs it to prove
// that a TypeScript plugin built on our SDK works under a Go host.
//
// It launches the TypeScript echo plugin through go-plugin's client, serves
// pluggableharness.kernel.v1.KernelCallbackService on broker ID 1 (its
// CountTokens answers 4242, exact, so the test can tell that the answer came
// from this Go host), then calls Describe, Invoke echo, Invoke count n=1000
// and Invoke tokens, kills the plugin and prints one JSON object on stdout.
// Any failure exits 1 with a message on stderr.
//
// Usage:
//
//	gohost -deno /path/to/deno -repo /path/to/repo [-n 1000]
//
// GOHOST_LOG_LEVEL=debug (or trace) shows go-plugin's own log lines.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/structpb"

	kernelv1 "phagent/gen/pluggableharness/kernel/v1"
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

// hostTokenCount is what this host's CountTokens answers: distinctive, so a
// result of 4242 proves the plugin reached this Go host's callback server.
const hostTokenCount = 4242

// kernelServer is this host's KernelCallbackService: CountTokens and Log.
type kernelServer struct {
	kernelv1.UnimplementedKernelCallbackServiceServer

	mu               sync.Mutex
	countTokensCalls int
	lastText         string
	logEntries       int
}

func (k *kernelServer) CountTokens(_ context.Context, req *kernelv1.CountTokensRequest) (*kernelv1.CountTokensResult, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.countTokensCalls++
	text := ""
	for _, b := range req.GetContent() {
		text += b.GetText().GetText()
	}
	k.lastText = text
	return &kernelv1.CountTokensResult{Count: hostTokenCount, Exact: true}, nil
}

func (k *kernelServer) Log(_ context.Context, req *kernelv1.LogRequest) (*kernelv1.LogResult, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.logEntries += len(req.GetEntries())
	return &kernelv1.LogResult{}, nil
}

// toolPlugin is the host-side go-plugin adapter for the "tool" category.
type toolPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	kernel *kernelServer
}

func (p *toolPlugin) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error {
	return errors.New("gohost is a host, not a plugin")
}

// GRPCClient runs at Dispense: like the reference kernel, it offers
// KernelCallbackService on the fixed broker ID 1 (design/plugins.md §2.11).
func (p *toolPlugin) GRPCClient(_ context.Context, broker *plugin.GRPCBroker, conn *grpc.ClientConn) (interface{}, error) {
	go broker.AcceptAndServe(callbackBrokerID, func(opts []grpc.ServerOption) *grpc.Server {
		s := grpc.NewServer(opts...)
		kernelv1.RegisterKernelCallbackServiceServer(s, p.kernel)
		return s
	})
	return toolv1.NewToolServiceClient(conn), nil
}

type invokeOutcome struct {
	Progress int                    `json:"progress"`
	Result   map[string]interface{} `json:"result,omitempty"`
	Error    string                 `json:"error,omitempty"`
	Ms       float64                `json:"ms"`
}

func invoke(ctx context.Context, c toolv1.ToolServiceClient, name string, args map[string]interface{}) (*invokeOutcome, error) {
	st, err := structpb.NewStruct(args)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	stream, err := c.Invoke(ctx, &toolv1.InvokeRequest{Call: &toolv1.ToolCall{Id: "go-" + name, ToolName: name, Arguments: st}})
	if err != nil {
		return nil, fmt.Errorf("Invoke %s: %w", name, err)
	}
	out := &invokeOutcome{}
	terminals := 0
	for {
		r, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("Invoke %s: receive: %w", name, err)
		}
		if terminals > 0 {
			return nil, fmt.Errorf("Invoke %s: an event arrived after the terminal event", name)
		}
		switch ev := r.GetEvent().GetEvent().(type) {
		case *toolv1.ToolEvent_Progress:
			out.Progress++
		case *toolv1.ToolEvent_Result:
			terminals++
			out.Result = ev.Result.GetPayload().AsMap()
		case *toolv1.ToolEvent_Error:
			terminals++
			out.Error = fmt.Sprintf("%s: %s", ev.Error.GetCategory(), ev.Error.GetMessage())
		default:
			return nil, fmt.Errorf("Invoke %s: unexpected event %T", name, ev)
		}
	}
	if terminals != 1 {
		return nil, fmt.Errorf("Invoke %s: %d terminal events, want exactly 1", name, terminals)
	}
	if out.Error != "" {
		return nil, fmt.Errorf("Invoke %s: tool error %s", name, out.Error)
	}
	out.Ms = ms(time.Since(start))
	return out, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func fatal(format string, a ...interface{}) {
	fmt.Fprintf(os.Stderr, "gohost: "+format+"\n", a...)
	os.Exit(1)
}

func main() {
	deno := flag.String("deno", "", "path of the deno binary")
	repo := flag.String("repo", "", "path of the repository root")
	n := flag.Int("n", 1000, "events the count tool streams")
	flag.Parse()
	if *deno == "" || *repo == "" {
		fatal("usage: gohost -deno /path/to/deno -repo /path/to/repo [-n 1000]")
	}
	entry := filepath.Join(*repo, "plugins", "echo", "main.ts")

	logger := hclog.New(&hclog.LoggerOptions{
		Name:   "gohost",
		Level:  hclog.LevelFromString(os.Getenv("GOHOST_LOG_LEVEL")),
		Output: os.Stderr,
	})
	if os.Getenv("GOHOST_LOG_LEVEL") == "" {
		logger.SetLevel(hclog.Warn)
	}

	// go-plugin 1.0.1 appends the host's whole environment and the handshake
	// variables (cookie, PLUGIN_MIN/MAX_PORT, PLUGIN_PROTOCOL_VERSIONS) to
	// whatever is set here; the plugin's socket lands in $TMPDIR.
	cmd := exec.Command(*deno, "run", "--cached-only", "--no-prompt", "-A", entry)
	cmd.Dir = *repo
	cmd.Env = []string{"NO_COLOR=1", "DENO_NO_UPDATE_CHECK=1"}

	kernel := &kernelServer{}
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig: plugin.HandshakeConfig{
			ProtocolVersion:  appProtocol,
			MagicCookieKey:   magicCookieKey,
			MagicCookieValue: magicCookieValue,
		},
		Plugins:          map[string]plugin.Plugin{"tool": &toolPlugin{kernel: kernel}},
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		StartTimeout:     60 * time.Second,
		Stderr:           os.Stderr,
		Logger:           logger,
	})
	killed := false
	defer func() {
		if !killed {
			client.Kill()
		}
	}()
	fail := func(format string, a ...interface{}) {
		client.Kill()
		killed = true
		fatal(format, a...)
	}

	start := time.Now()
	rpc, err := client.Client()
	if err != nil {
		fail("start the TypeScript plugin: %v", err)
	}
	if err := rpc.Ping(); err != nil {
		fail("health check: %v", err)
	}
	startMs := ms(time.Since(start))
	raw, err := rpc.Dispense("tool")
	if err != nil {
		fail("dispense tool: %v", err)
	}
	tool := raw.(toolv1.ToolServiceClient)
	ctx := context.Background()

	desc, err := tool.Describe(ctx, &toolv1.DescribeRequest{})
	if err != nil {
		fail("Describe: %v", err)
	}
	schema, err := tool.GetSchema(ctx, &toolv1.GetSchemaRequest{})
	if err != nil {
		fail("GetSchema: %v", err)
	}
	var tools []string
	for _, t := range schema.GetTools() {
		tools = append(tools, t.GetName())
	}
	echo, err := invoke(ctx, tool, "echo", map[string]interface{}{"text": "hello from Go"})
	if err != nil {
		fail("%v", err)
	}
	count, err := invoke(ctx, tool, "count", map[string]interface{}{"n": float64(*n)})
	if err != nil {
		fail("%v", err)
	}
	tokens, err := invoke(ctx, tool, "tokens", map[string]interface{}{"text": "count me, Go host"})
	if err != nil {
		fail("%v", err)
	}

	logger.Debug("calls done, killing the plugin")
	killStart := time.Now()
	client.Kill()
	killed = true
	killMs := ms(time.Since(killStart))
	logger.Debug("plugin killed", "ms", killMs)

	kernel.mu.Lock()
	defer kernel.mu.Unlock()
	p := desc.GetProducer()
	out := map[string]interface{}{
		"negotiatedVersion": client.NegotiatedVersion(),
		"protocol":          string(client.Protocol()),
		"startMs":           startMs,
		"describe": map[string]interface{}{
			"name": p.GetName(), "version": p.GetVersion(), "source": p.GetSource(),
			"category": p.GetCategory().String(), "protocolVersion": p.GetProtocolVersion(),
		},
		"tools":  tools,
		"echo":   echo,
		"count":  count,
		"tokens": tokens,
		"callback": map[string]interface{}{
			"countTokensCalls": kernel.countTokensCalls,
			"lastText":         kernel.lastText,
			"logEntries":       kernel.logEntries,
		},
		"killMs": killMs,
		"exited": client.Exited(),
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(out); err != nil {
		fatal("write the result: %v", err)
	}
}

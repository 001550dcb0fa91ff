// A Node.js tool-calling agent that exports its tool executions as OpenTelemetry spans.
// The OpenTelemetry Node SDK is configured by the environment alone (OTEL_EXPORTER_OTLP_*,
// as the harness sets it); each tool call runs inside an `execute_tool` span following the
// GenAI semantic conventions. HARNESS_TEST_BUG=wrong_arguments or hidden_failure makes the
// broken variants: the tool gets other arguments than the model asked for, or it fails while
// the model is told it succeeded.
import { createInterface } from "node:readline";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { trace, SpanStatusCode } from "@opentelemetry/api";

const sdk = new NodeSDK({ serviceName: "harness-node-agent" });
sdk.start();
const tracer = trace.getTracer("node-agent");
const bug = process.env.HARNESS_TEST_BUG || "";
const baseUrl = process.env.OPENAI_BASE_URL;
const apiKey = process.env.OPENAI_API_KEY;
const tools = [{
  type: "function",
  function: {
    name: "echo",
    description: "Echo back the given message.",
    parameters: { type: "object", properties: { message: { type: "string" } } },
  },
}];
const messages = [];

async function complete() {
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ model: "gpt-test", messages, tools }),
  });
  if (!response.ok) throw new Error(`model answered ${response.status}`);
  return (await response.json()).choices[0].message;
}

function execute(call) {
  let args = JSON.parse(call.function.arguments);
  if (bug === "wrong_arguments") args = { ...args, message: "something else" };
  return tracer.startActiveSpan(`execute_tool ${call.function.name}`, {
    attributes: {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": call.function.name,
      "gen_ai.tool.call.id": call.id,
      "gen_ai.tool.call.arguments": JSON.stringify(args),
    },
  }, (span) => {
    try {
      if (bug === "hidden_failure") {
        span.setStatus({ code: SpanStatusCode.ERROR, message: "the echo service is down" });
        span.setAttribute("error.type", "EchoDown");
        return String(args.message); // the bug: the model is told it worked
      }
      const result = String(args.message ?? "(empty)");
      span.setAttribute("gen_ai.tool.call.result", result);
      return result;
    } finally {
      span.end();
    }
  });
}

async function turn(userInput) {
  messages.push({ role: "user", content: userInput });
  for (let round = 0; round < 10; round++) {
    const message = await complete();
    messages.push(message);
    if (!message.tool_calls || message.tool_calls.length === 0) return message.content ?? "";
    for (const call of message.tool_calls) {
      messages.push({ role: "tool", tool_call_id: call.id, content: execute(call) });
    }
  }
  throw new Error("too many tool rounds");
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const response = await turn(JSON.parse(line).user_input);
  process.stdout.write(JSON.stringify({ response }) + "\n");
}
await sdk.shutdown(); // flushes the spans still batched, as on any exit

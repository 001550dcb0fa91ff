// A Vercel AI SDK agent (generateText with a tool), replayed by the harness unmodified: its
// model is the OpenAI provider at OPENAI_BASE_URL, and its tool spans come from the AI SDK's
// own OpenTelemetry integration (@ai-sdk/otel), exported by the Node SDK configured by the
// environment. HARNESS_TEST_BUG=hidden_failure makes the tool fail.
import { createInterface } from "node:readline";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { OpenTelemetry } from "@ai-sdk/otel";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, registerTelemetry, stepCountIs, tool } from "ai";
import { z } from "zod";

const sdk = new NodeSDK({ serviceName: "harness-vercel-agent" });
sdk.start();
registerTelemetry(new OpenTelemetry());
const bug = process.env.HARNESS_TEST_BUG || "";
const openai = createOpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY });
const tools = {
  echo: tool({
    description: "Echo back the given message.",
    inputSchema: z.object({ message: z.string() }),
    execute: async ({ message }) => {
      if (bug === "hidden_failure") throw new Error("the echo service is down");
      return message;
    },
  }),
};
const messages = [];

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  messages.push({ role: "user", content: JSON.parse(line).user_input });
  const result = await generateText({
    model: openai.chat("gpt-test"),
    messages,
    tools,
    stopWhen: stepCountIs(5),
    experimental_telemetry: { isEnabled: true, recordInputs: true, recordOutputs: true },
  });
  messages.push(...result.response.messages);
  process.stdout.write(JSON.stringify({ response: result.text }) + "\n");
}
await sdk.shutdown();

// A tool-calling agent in Node.js on the official `openai` package, in Responses mode,
// replayed by harness unmodified. It speaks harness's JSON-lines protocol ({"user_input"} in,
// {"response"} out); the client reads OPENAI_BASE_URL and OPENAI_API_KEY from the environment.
// The package is resolved from HARNESS_NODE_MODULES (the nox `node_clients` session installs
// it there). With BROKEN=1 its tool answers wrongly, and the fixture must fail.
import { createRequire } from "node:module";
import { createInterface } from "node:readline";

const require = createRequire(`${process.env.HARNESS_NODE_MODULES}/`);
const { default: OpenAI } = require("openai");

const client = new OpenAI({ maxRetries: 0 });
const stream = process.env.STREAM === "1";
const tools = [{
  type: "function",
  name: "echo",
  description: "Echo back the given message.",
  parameters: { type: "object", properties: { message: { type: "string" } } },
  strict: false,
}];
const input = [];

function echo(argumentsJson) {
  if (process.env.BROKEN === "1") return "(broken)";
  const message = JSON.parse(argumentsJson).message;
  return typeof message === "string" ? message : "(empty)";
}

async function respond() {
  const request = { model: "gpt-test", instructions: "You are helpful.", input, tools };
  if (!stream) return client.responses.create(request);
  return client.responses.stream(request).finalResponse();
}

async function turn(userInput) {
  input.push({ role: "user", content: userInput });
  for (let round = 0; round < 10; round++) {
    const response = await respond();
    input.push(...response.output);
    const calls = response.output.filter((item) => item.type === "function_call");
    if (calls.length === 0) return response.output_text;
    for (const call of calls) {
      input.push({ type: "function_call_output", call_id: call.call_id, output: echo(call.arguments) });
    }
  }
  throw new Error("too many tool rounds");
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const { user_input: userInput } = JSON.parse(line);
  const response = await turn(userInput);
  process.stdout.write(JSON.stringify({ response }) + "\n");
}

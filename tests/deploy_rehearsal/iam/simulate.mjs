// Evaluates the deploy rehearsal's IAM requests with @cloud-copilot/iam-simulate.
//
// stdin: {"account": "...", "roles": {principal: role ARN}, "policies": {id: policy document},
//         "grants": {principal: [policy id, ...]}, "requests": [{principal, action, resource}]}
// stdout: one result per request, in order: {"result": "Allowed" | "ImplicitlyDenied" |
//         "ExplicitlyDenied" | "Error", "errors": ..., "grants": [{"policy": id,
//         "actions": [pattern], "resources": [pattern]}]} (the statements that allowed it).
import { runSimulation } from '@cloud-copilot/iam-simulate'

const asList = (value) => (value === undefined ? [] : Array.isArray(value) ? value : [value])
const matched = (explains, key) =>
  asList(explains).filter((explain) => explain.matches).map((explain) => explain[key])

async function evaluate(input, request) {
  const simulation = {
    identityPolicies: input.grants[request.principal].map((id) => ({ name: id, policy: input.policies[id] })),
    serviceControlPolicies: [],
    resourceControlPolicies: [],
    request: {
      principal: input.roles[request.principal],
      action: request.action,
      resource: { resource: request.resource, accountId: input.account },
      contextVariables: {},
    },
  }
  const response = await runSimulation(simulation, {})
  if (response.resultType === 'error') {
    return { result: 'Error', errors: response.errors, grants: [] }
  }
  const allows = response.result?.analysis?.identityAnalysis?.allowStatements ?? []
  return {
    result: response.overallResult,
    errors: null,
    grants: allows.map((statement) => ({
      policy: statement.policyId,
      actions: matched(statement.explain.actions, 'action'),
      resources: matched(statement.explain.resources, 'resource'),
    })),
  }
}

const chunks = []
for await (const chunk of process.stdin) chunks.push(chunk)
const input = JSON.parse(Buffer.concat(chunks).toString('utf8'))
const results = []
for (const request of input.requests) results.push(await evaluate(input, request))
process.stdout.write(JSON.stringify(results))

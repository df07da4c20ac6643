// A worker gets its task by structured clone, which keeps plain data but not the template engine's value classes a
// `--var` can hold: a float written 1.0 (PyFloat) arrives as a plain object and renders as `{'value': 1}`, and
// integer-like keys (a Map, to keep their order) lose their order. So template variables travel as Python JSON text
// and are read back on the worker's side, the same values the main thread renders with.
import { parsePythonJson, pythonJsonDumps } from '../jinja/index.js';
import type { WorkerTask } from './worker.js';

/** A task as it crosses to a worker thread. */
export type PackedTask = WorkerTask & { variablesText?: string };

export function packTask(task: WorkerTask): PackedTask {
  const variables = (task.options as { variables?: Record<string, unknown> }).variables;
  if (variables === undefined) return task;
  return { ...task, options: { ...task.options, variables: undefined }, variablesText: pythonJsonDumps(variables) } as PackedTask;
}

export function unpackTask(packed: PackedTask): WorkerTask {
  const { variablesText, ...task } = packed;
  if (variablesText === undefined) return task as WorkerTask;
  const value = parsePythonJson(variablesText);
  const variables = value instanceof Map ? Object.fromEntries(value) : (value as Record<string, unknown>);
  return { ...task, options: { ...task.options, variables } } as WorkerTask;
}

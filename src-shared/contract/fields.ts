import { z } from 'zod';

export { httpUrlSchema, MAX_URL_LENGTH } from '../domain';

/**
 * Length limits of the strings a caller may send. Stored data is limited where it enters, so
 * no channel can make the store keep (or a view draw) an unbounded string.
 */
export const LIMITS = {
  /** Session, fleet, request and thread ids, agent names in filters. */
  id: 200,
  title: 300,
  tag: 60,
  tags: 50,
  /** Search text and filter values. */
  search: 500,
  /** A run's task, a follow-up, a human's answer. */
  text: 100_000,
  /** Model names, environment variable names. */
  name: 300,
  /** A folder path on this machine (the folder a run may read files from). */
  path: 4096,
  /** Sessions one client watches at a time. */
  watched: 50,
  /** Keys of free-form JSON objects (fleet files). */
  jsonKey: 200,
  /** String values inside free-form JSON objects (a system prompt, a scripted reply). */
  jsonString: 200_000,
  /** Items of one array inside free-form JSON. */
  jsonArray: 10_000,
} as const;

export const idSchema = z.string().min(1).max(LIMITS.id);

/** Free-form JSON as it crosses the contract. Object values may be undefined (IPC keeps them). */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue | undefined;
}

const jsonKeySchema = z.string().max(LIMITS.jsonKey);

/**
 * Any JSON value with bounded strings, keys and arrays. Numbers are finite; functions, dates, maps,
 * class instances and other non-JSON values are refused.
 */
export const jsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string().max(LIMITS.jsonString),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(jsonValueSchema).max(LIMITS.jsonArray),
    jsonObjectSchema,
  ]),
);

/** A JSON object (not an array): the shape of a fleet file before the fleet validator reads it. */
export const jsonObjectSchema: z.ZodType<JsonObject> = z.lazy(() =>
  z.record(jsonKeySchema, jsonValueSchema.optional()),
);

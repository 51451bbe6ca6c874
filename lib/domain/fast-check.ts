import type { z } from "zod";

/** What a fast check answers when it cannot vouch for a value: let the schema itself judge (and word the error). */
export const UNSURE = Symbol("unsure");

export type FastCheck = (value: unknown) => unknown;

/** The parts of zod 4's schema definitions read here (`schema._zod.def`, the same objects zod's own JIT reads). */
interface Definition {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  format?: string;
  checks?: { _zod: { def: CheckDefinition } }[];
}

interface CheckDefinition {
  check: string;
  value?: number;
  inclusive?: boolean;
  format?: string;
  minimum?: number;
  maximum?: number;
}

function definitionOf(schema: z.ZodType): Definition {
  return (schema as unknown as { _zod: { def: Definition } })._zod.def;
}

function checksOf(definition: Definition): CheckDefinition[] {
  return (definition.checks ?? []).map((check) => check._zod.def);
}

function unsupported(where: string, what: string): never {
  throw new Error(`fast check of ${where}: ${what} is not supported (extend lib/domain/fast-check.ts or leave the schema to zod)`);
}

function numberCheck(definition: Definition, where: string): FastCheck {
  // Bounds made inclusive-or-exclusive pairs, so that one closure tests them all.
  let low = -Infinity;
  let lowInclusive = true;
  let high = Infinity;
  let highInclusive = true;
  let integer = false;
  for (const check of checksOf(definition)) {
    const bound = check.value!;
    if (check.check === "greater_than" && (bound > low || (bound === low && !check.inclusive))) [low, lowInclusive] = [bound, check.inclusive === true];
    else if (check.check === "less_than" && (bound < high || (bound === high && !check.inclusive))) [high, highInclusive] = [bound, check.inclusive === true];
    else if (check.check === "number_format" && check.format === "safeint") integer = true;
    else if (check.check !== "greater_than" && check.check !== "less_than") unsupported(where, `number check ${check.check} ${check.format ?? ""}`);
  }
  return (value) => {
    // zod 4 numbers refuse NaN and ±Infinity whatever their checks.
    if (typeof value !== "number" || !Number.isFinite(value)) return UNSURE;
    if (lowInclusive ? value < low : value <= low) return UNSURE;
    if (highInclusive ? value > high : value >= high) return UNSURE;
    return integer && !Number.isSafeInteger(value) ? UNSURE : value;
  };
}

function stringCheck(schema: z.ZodType, definition: Definition, where: string): FastCheck {
  let min = 0;
  let max = Infinity;
  // A format (ISO date-time, e-mail, …) is zod's own to test: the fast check asks the schema for that string alone.
  let format = definition.format !== undefined;
  for (const check of checksOf(definition)) {
    if (check.check === "max_length") max = Math.min(max, check.maximum!);
    else if (check.check === "min_length") min = Math.max(min, check.minimum!);
    else if (check.check === "string_format") format = true;
    else unsupported(where, `string check ${check.check}`);
  }
  if (format) return (value) => (typeof value === "string" && schema.safeParse(value).success ? value : UNSURE);
  return (value) => (typeof value === "string" && value.length >= min && value.length <= max ? value : UNSURE);
}

function arrayCheck(definition: Definition, where: string): FastCheck {
  let min = 0;
  let max = Infinity;
  for (const check of checksOf(definition)) {
    if (check.check === "max_length") max = Math.min(max, check.maximum!);
    else if (check.check === "min_length") min = Math.max(min, check.minimum!);
    else unsupported(where, `array check ${check.check}`);
  }
  const element = compile(definition.element!, `${where}[]`);
  return (value) => {
    if (!Array.isArray(value) || value.length < min || value.length > max) return UNSURE;
    const out: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = element(value[i]);
      if (item === UNSURE) return UNSURE;
      out[i] = item;
    }
    return out;
  };
}

function objectCheck(definition: Definition, where: string): FastCheck {
  for (const check of checksOf(definition)) {
    // Refinements (superRefine) are code, not data: the caller runs them on what the fast check returns.
    if (check.check !== "custom") unsupported(where, `object check ${check.check}`);
  }
  const fields = Object.entries(definition.shape!).map(([key, schema]) => {
    const optional = definitionOf(schema).type === "optional";
    return { key, optional, check: compile(optional ? definitionOf(schema).innerType! : schema, `${where}.${key}`) };
  });
  return (value) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return UNSURE;
    const input = value as Record<string, unknown>;
    // Only the schema's keys, as zod's parse strips the others.
    const out: Record<string, unknown> = {};
    for (const { key, optional, check } of fields) {
      const field = input[key];
      if (field === undefined) {
        if (optional && !Object.hasOwn(input, key)) continue;
        return UNSURE;
      }
      const checked = check(field);
      if (checked === UNSURE) return UNSURE;
      out[key] = checked;
    }
    return out;
  };
}

function compile(schema: z.ZodType, where: string): FastCheck {
  const definition = definitionOf(schema);
  switch (definition.type) {
    case "object":
      return objectCheck(definition, where);
    case "array":
      return arrayCheck(definition, where);
    case "nullable": {
      const inner = compile(definition.innerType!, where);
      return (value) => (value === null ? null : inner(value));
    }
    case "number":
      return numberCheck(definition, where);
    case "string":
      return stringCheck(schema, definition, where);
    case "boolean":
      return (value) => (typeof value === "boolean" ? value : UNSURE);
    default:
      return unsupported(where, `type ${definition.type}`);
  }
}

/**
 * A check of the data the schema describes that does no more than test
 * each value against the schema's own bounds (read from the schema, so
 * they stay defined once) and copy the schema's keys. It answers the
 * parsed value when every bound holds, and UNSURE otherwise; it never
 * refuses: whatever it is unsure of goes to the schema, which decides and
 * words the error. Refinements (`superRefine`) are not run: the caller
 * runs them on the answer. Meant for a hot path whose input is almost
 * always valid (an agent's readings, every second from every host), where
 * zod's issue bookkeeping dominated. Throws at build time for a schema
 * part it does not know, rather than guessing.
 */
export function compileFastCheck(schema: z.ZodType): FastCheck {
  return compile(schema, "(root)");
}

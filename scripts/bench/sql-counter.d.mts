export function countSqlStatements(): Map<string, number>;
export function summarizeSqlCounts(counts: Map<string, number>, top?: number): { total: number; top: [string, number][] };

export declare const targets: Record<string, { file: string; unbooted?: string[]; booted?: string[] }>;

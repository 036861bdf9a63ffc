/**
 * The model repository (after NVIDIA Triton's): one folder per model,
 * `<root>/<name>/config.json` (services/models/config.ts) and version folders
 * `<root>/<name>/<version>/<model_file>`. A model is installed when its config is valid,
 * names a backend this build has for its capability, and the version its policy picks
 * holds the model file (the latest such folder by default).
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { BACKENDS } from '../capabilities/index.ts';
import { ModelConfigError, parseModelConfig, type ModelConfig } from './config.ts';

export { ModelConfigError, type ModelConfig } from './config.ts';

/** A model as installed: its config, the version that serves, and where its files are. */
export interface InstalledModel extends ModelConfig {
  /** the version folder that serves */
  version: number;
  /** the model's folder */
  dir: string;
  /** the model file of that version */
  modelPath: string;
}

/** Reads models from a repository folder. */
export class ModelRepository {
  private readonly cache = new Map<string, { model: InstalledModel | null; until: number }>();

  /** @param cacheMs how long a read config (or its absence) is reused, ms: a model installed meanwhile is seen after this */
  constructor(readonly root: string, private readonly cacheMs = 5000) {}

  /** Folder of a model. */
  dir(name: string): string { return join(this.root, name); }

  /**
   * An installed model.
   * @returns null when the folder, config.json or the model file of the chosen version is missing
   * @throws ModelConfigError when config.json is not JSON, breaks its schema, or names a backend this build lacks
   */
  config(name: string): InstalledModel | null {
    const hit = this.cache.get(name);
    if (hit && hit.until > Date.now()) return hit.model;
    const model = this.read(name);
    this.cache.set(name, { model, until: Date.now() + this.cacheMs });
    return model;
  }

  /** Whether a model is installed (an invalid config counts as not installed here; {@link check} reports it). */
  installed(name: string): boolean {
    try { return this.config(name) !== null; } catch { return false; }
  }

  /**
   * Reads every model folder of the repository (at start-up), so a bad config.json fails
   * the start naming the file and the field instead of a request later.
   * @returns the names of the installed models
   * @throws ModelConfigError for the first invalid config.json
   */
  check(): string[] {
    if (!existsSync(this.root)) return [];
    // a model folder may be a symbolic link (a repository assembled from several places)
    const names = readdirSync(this.root, { withFileTypes: true }).filter((e) => (e.isDirectory() || e.isSymbolicLink()) && existsSync(join(this.root, e.name, 'config.json'))).map((e) => e.name);
    return names.filter((name) => this.read(name) !== null).sort();
  }

  private read(name: string): InstalledModel | null {
    if (!/^[A-Za-z0-9._-]+$/.test(name)) return null;
    const dir = this.dir(name);
    const file = join(dir, 'config.json');
    if (!existsSync(file)) return null;
    let raw: unknown;
    try { raw = JSON.parse(readFileSync(file, 'utf8')); } catch (err) { throw new ModelConfigError(`${file}: not JSON (${(err as Error).message})`); }
    const cfg = parseModelConfig(raw, file, name);
    const backend = BACKENDS[cfg.backend];
    if (!backend) throw new ModelConfigError(`${file}: backend "${cfg.backend}" is not one of this build's (${Object.keys(BACKENDS).join(', ')})`);
    if (backend.capability !== cfg.capability) throw new ModelConfigError(`${file}: backend "${cfg.backend}" runs ${backend.capability}, not ${cfg.capability}`);
    if (cfg.weights) {
      const path = resolveWeights(dir, cfg.weights);
      return path === null ? null : { ...cfg, version: 1, dir, modelPath: path };
    }
    const version = this.versionOf(dir, cfg);
    return version === null ? null : { ...cfg, version, dir, modelPath: join(dir, String(version), cfg.model_file) };
  }

  /** The version folder the policy picks among those that hold the model file; null when none. */
  private versionOf(dir: string, cfg: ModelConfig): number | null {
    const has = (v: number) => existsSync(join(dir, String(v), cfg.model_file));
    if ('specific' in cfg.version_policy) return has(cfg.version_policy.specific.version) ? cfg.version_policy.specific.version : null;
    const versions = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory() && /^[1-9]\d*$/.test(e.name)).map((e) => Number(e.name)).filter(has);
    return versions.length > 0 ? Math.max(...versions) : null;
  }
}

/**
 * The first of a config's `weights` paths that names an existing file: `${VAR}` is
 * replaced by the environment variable (a path naming an unset or empty one is skipped), a
 * relative path is read from the model's folder.
 * @param env the environment (process.env)
 * @returns the file's path, or null when none exists
 */
export function resolveWeights(dir: string, paths: readonly string[], env: NodeJS.ProcessEnv = process.env): string | null {
  for (const p of paths) {
    let unset = false;
    const expanded = p.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
      const v = env[name];
      if (!v) unset = true;
      return v ?? '';
    });
    if (unset) continue;
    const path = isAbsolute(expanded) ? expanded : join(dir, expanded);
    try { if (statSync(path).isFile()) return path; } catch { /* not there */ }
  }
  return null;
}

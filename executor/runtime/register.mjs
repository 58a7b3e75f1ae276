// Loaded with `node --import` in the jail: installs the TypeScript hooks.
import { register } from "node:module";

register("./loader.mjs", import.meta.url);

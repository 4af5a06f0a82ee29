/**
 * Price-table keys, shared by the config file, the admin API and the console's model form
 * (browser-safe: imports nothing). perImage keys are exactly what image-plan.ts looks up:
 * `*`, `quality:WxH`, `*:WxH` or `quality:*`.
 */
export const PER_IMAGE_KEY = /^(\*|[a-z]+:\d+x\d+|\*:\d+x\d+|[a-z]+:\*)$/;
export const PER_IMAGE_KEY_HINT = 'Use quality:WIDTHxHEIGHT (e.g. high:1024x1024), *:WIDTHxHEIGHT, quality:* or *.';

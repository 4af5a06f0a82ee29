/**
 * Price-table keys, shared by the config file, the admin API and the console's model form
 * (browser-safe: imports nothing). perImage keys are exactly what lib/gateway/media/image-plan.ts looks up:
 * `*`, `quality:WxH`, `*:WxH` or `quality:*`.
 */
export const PER_IMAGE_KEY = /^(\*|[a-z]+:\d+x\d+|\*:\d+x\d+|[a-z]+:\*)$/;
/** perSecond keys (video-price.ts): a resolution (`720p`, `1080p`, `4k`), with `:audio` where sound changes the price. */
export const PER_SECOND_KEY = /^(\d{3,4}p|[248]k)(:audio)?$/;
export const PER_SECOND_KEY_HINT = "Use a resolution such as 720p, 1080p or 4k, with :audio for the price with sound (e.g. 1080p:audio).";
export const PER_IMAGE_KEY_HINT = 'Use quality:WIDTHxHEIGHT (e.g. high:1024x1024), *:WIDTHxHEIGHT, quality:* or *.';

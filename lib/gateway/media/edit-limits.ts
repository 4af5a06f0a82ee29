/**
 * What one `POST /v1/images/edits` may upload (docs/images.md): a module of constants alone, so
 * the console's playground form enforces the same limits without bundling the parser.
 */
export const MAX_EDIT_IMAGES = 16;
export const MAX_EDIT_IMAGE_BYTES = 50 * 1024 * 1024;
export const MAX_MASK_BYTES = 4 * 1024 * 1024;
/** The route's body limit: what one request may upload in all. */
export const EDIT_BODY_LIMIT = 64 * 1024 * 1024;

import type { ToolOutput, ToolState } from './tool.js'

/** The key in `ToolState.extra` under which the composition root says whether the current model sees images. */
const VISION_KEY = 'read-image:vision'

/** Whether the agent's current model takes images, and its id for the sentence; asked at each read. */
export type ModelVision = () => { model: string; images: boolean }

/** Tells the image-reading tools of this tool state how to learn whether the current model sees images. */
export function setModelVision(state: ToolState, vision: ModelVision): void {
  state.extra.set(VISION_KEY, vision)
}

/**
 * `read` of a PNG, JPEG, GIF or WebP file for a model that cannot see images: one sentence saying so, instead of an
 * image block that would reach it only as a placeholder note. Undefined when the model sees images, or when no
 * composition root said (then the block is returned, and the wire still replaces it for a model without vision).
 */
export function unseenImage(state: ToolState, absolute: string, shown: string, mimeType: string, size: number): ToolOutput | undefined {
  const vision = (state.extra.get(VISION_KEY) as ModelVision | undefined)?.()
  if (!vision || vision.images) return undefined
  return {
    content: [
      {
        type: 'text',
        text: `${shown} is an image (${mimeType}, ${size} bytes), and ${vision.model} cannot see images, so it was not attached. A vision model such as deepseek-flash can look at it.`,
      },
    ],
    meta: { path: absolute, image: mimeType, attached: false },
  }
}

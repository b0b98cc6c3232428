export interface SimPinImage {
  url: string;
  /** Bytes Pinterest fetched from `url`, and their SHA-256. */
  size: number;
  sha256: string;
  contentType: string;
}

export interface SimPin {
  id: string;
  owner: string;
  boardId: string;
  boardSectionId: string | null;
  title: string | null;
  description: string | null;
  link: string | null;
  altText: string | null;
  createdAt: string;
  deleted: boolean;
  media:
    | { type: 'image'; images: SimPinImage[] }
    | { type: 'multiple_images'; images: SimPinImage[] }
    | {
        type: 'video';
        mediaId: string;
        cover: SimPinImage | null;
        coverKeyFrameTime: number | null;
      };
}

export interface SimPinterestMedia {
  mediaId: string;
  owner: string;
  status: 'registered' | 'processing' | 'succeeded' | 'failed';
  /** Fields of the upload form besides the file, as Pinterest handed them out. */
  key: string;
  size: number | null;
  sha256: string | null;
  contentType: string | null;
  /** When processing ends (ms epoch), once the file arrived. */
  readyAt: number | null;
  /** When the upload form's policy expires (ms epoch). */
  uploadExpiresAt: number;
  failing: boolean;
  /** Pins made with it. */
  pins: string[];
}

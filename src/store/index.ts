/**
 * @file The library store: IndexedDB through idb (DESIGN.md section 4, "Storage").
 * Import from here; the files behind it may move.
 */
export {
  Library,
  openLibrary,
  deleteLibrary,
  type DocumentIndex,
  type DocumentPatch,
  type IndexedDocumentInput,
  type IndexParts,
  type NewDocument,
  type NewQuestion,
  type StoredVectors,
  type LibraryRecords,
} from './library';
export {
  packLibrary,
  unpackLibrary,
  LibraryFileError,
  LIBRARY_FILE_EXTENSION,
  LIBRARY_FILE_VERSION,
  type LibraryManifest,
} from './carry';
export type { OpenLibraryOptions } from './db';
export {
  StoreError,
  isStoreError,
  isQuotaExceeded,
  formatBytes,
  type StoreErrorCode,
  type QuotaDetails,
  type DeletionCandidate,
} from './errors';
export {
  packFragments,
  unpackFragments,
  relationParamsKey,
  type FragmentTable,
  type RelationInput,
  type StoredRelation,
} from './codec';
export {
  CHAT_TITLE_MAX,
  UNTITLED_CHAT,
  chatTitle,
  readChatRecord,
  readChatSettings,
  titleFromMessage,
  type ChatPatch,
  type NewChat,
} from './chats';
export {
  LIBRARY_DB_NAME,
  LIBRARY_VERSION,
  SERIALIZATION_VERSION,
  MIGRATIONS,
  type ChatRecord,
  type ChatRoundRecord,
  type ChatSettingsRecord,
  type DocumentRecord,
  type DocumentSection,
  type DocumentStatus,
  type FragmentRef,
  type LibrarySchema,
  type Migration,
  type CitationRecord,
  type CodeSyntaxFileRecord,
  type CodeSyntaxRecord,
  type QuestionRecord,
  type RelationParams,
  type RelationParamValue,
} from './schema';
export {
  estimateStorage,
  requestPersistentStorage,
  type PersistResult,
  type StorageEstimate,
} from './storage';

// Files into the page: the file picker, and drag and drop of files or a whole model folder.
import type { NamedFile } from './folder.js';

/** Calls `take` with the picked or dropped files and the folder they came from (or "dropped files"). */
export function wireFileInputs(input: HTMLInputElement, zone: HTMLElement, take: (files: NamedFile[], folderName: string) => void): void {
  input.addEventListener('change', () => {
    const files = [...(input.files ?? [])].map((file) => ({ path: file.webkitRelativePath || file.name, file }));
    take(files, folderNameOf(files));
    input.value = '';
  });
  wireDrop(zone, take);
}

function folderNameOf(files: NamedFile[]): string {
  const withFolder = files.find((file) => file.path.includes('/'));
  return withFolder ? withFolder.path.slice(0, withFolder.path.indexOf('/')) : 'dropped files';
}

function wireDrop(zone: HTMLElement, take: (files: NamedFile[], folderName: string) => void): void {
  zone.addEventListener('dragover', (event) => {
    event.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('over');
    const entries = [...(event.dataTransfer?.items ?? [])].map((item) => item.webkitGetAsEntry()).filter((entry): entry is FileSystemEntry => entry !== null);
    void collectEntries(entries).then((files) => take(files, entries.length === 1 && entries[0]!.isDirectory ? entries[0]!.name : 'dropped files'));
  });
}

/** Files of dropped entries: a folder is read two levels deep (its files and additional_chat_templates/). */
async function collectEntries(entries: FileSystemEntry[], depth = 0): Promise<NamedFile[]> {
  const out: NamedFile[] = [];
  for (const entry of entries) {
    if (entry.isFile) {
      const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
      out.push({ path: entry.fullPath.replace(/^\//, ''), file });
    } else if (entry.isDirectory && depth < 2) {
      const children = await new Promise<FileSystemEntry[]>((resolve, reject) => (entry as FileSystemDirectoryEntry).createReader().readEntries(resolve, reject));
      out.push(...(await collectEntries(children, depth + 1)));
    }
  }
  return out;
}
